// The console's shell: asks the member for its session (GET console/session), shows the login
// form when security is on and the credentials are missing or refused (no data before that),
// then the nav bar and the page of the URL's hash. Pages are in pages/index.ts.

// uPlot's few rules are here, not with the chart: a lazily loaded page's CSS would not be linked.
import 'uplot/dist/uPlot.min.css';
import './style.css';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, describe, getJson, hasCredentials, onAuthRefused, setCredentials, type Session } from './api.js';
import { PAGES } from './pages/index.js';
import { hrefOf, useLocation } from './router.js';
import { ErrorView, Loading, NotAllowed } from './ui.js';

type State =
  | { readonly kind: 'loading' }
  | { readonly kind: 'login'; readonly message: string | undefined }
  | { readonly kind: 'ready'; readonly session: Session }
  | { readonly kind: 'failed'; readonly error: unknown };

function App() {
  const [state, setState] = useState<State>({ kind: 'loading' });
  const load = async (): Promise<void> => {
    try {
      setState({ kind: 'ready', session: await getJson<Session>('console/session') });
    } catch (e) {
      if (e instanceof ApiError && e.unauthenticated) {
        const tried = hasCredentials();
        setCredentials(undefined);
        setState({ kind: 'login', message: tried ? 'Wrong user name or password.' : undefined });
      } else setState({ kind: 'failed', error: e });
    }
  };
  useEffect(() => {
    void load();
    // Credentials refused later (changed on the member): back to the login form, data gone.
    return onAuthRefused(() => {
      setCredentials(undefined);
      setState({ kind: 'login', message: 'The member no longer accepts these credentials.' });
    });
  }, []);
  switch (state.kind) {
    case 'loading':
      return <Loading />;
    case 'failed':
      return (
        <main class="centered">
          <h1>Grid console</h1>
          <ErrorView error={state.error} retry={() => void load()} />
        </main>
      );
    case 'login':
      return (
        <Login
          message={state.message}
          onSubmit={(username, password) => {
            setCredentials({ username, password });
            setState({ kind: 'loading' });
            void load();
          }}
        />
      );
    case 'ready':
      return (
        <Shell
          session={state.session}
          onLogout={() => {
            setCredentials(undefined);
            setState({ kind: 'login', message: 'Logged out.' });
          }}
        />
      );
  }
}

/** The user name of the last attempt: a refused login asks again for the password only. */
let lastUsername = '';

function Login(props: { message: string | undefined; onSubmit: (username: string, password: string) => void }) {
  const [username, setUsername] = useState(lastUsername);
  const [password, setPassword] = useState('');
  return (
    <main class="centered">
      <form
        class="login"
        data-testid="login"
        onSubmit={(e) => {
          e.preventDefault();
          lastUsername = username;
          props.onSubmit(username, password);
        }}
      >
        <h1>Grid console</h1>
        <p class="muted">This member has security on: sign in with a user of its client-authentication realm (the REST API's credentials).</p>
        {props.message && (
          <p class="error" role="alert" data-testid="login-message">
            {props.message}
          </p>
        )}
        <label>
          User name
          <input name="username" autoComplete="username" required autoFocus={username === ''} value={username} onInput={(e) => setUsername((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <label>
          Password
          <input name="password" type="password" autoComplete="current-password" autoFocus={username !== ''} value={password} onInput={(e) => setPassword((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <button type="submit" class="primary">
          Sign in
        </button>
      </form>
    </main>
  );
}

function Shell(props: { session: Session; onLogout: () => void }) {
  const { session } = props;
  const loc = useLocation();
  const allowed = (groups: readonly string[]): boolean => groups.every((g) => session.groups.includes(g));
  const visible = PAGES.filter((p) => allowed(p.groups));
  const page = PAGES.find((p) => p.id === loc.page) ?? visible[0];
  useEffect(() => {
    document.title = `${page?.title ?? 'Console'} · ${session.clusterName} · Grid`;
  }, [page, session.clusterName]);
  let body;
  if (page === undefined) body = <NotAllowed reason="this member serves none of the endpoint groups the console's pages need" />;
  else if (!allowed(page.groups)) body = <NotAllowed reason={`the ${page.title} page needs endpoint group ${page.groups.filter((g) => !session.groups.includes(g)).join(', ')}, which is disabled`} />;
  else body = <page.component session={session} rest={loc.rest} />;
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <span class="brand">Grid</span>
        <nav aria-label="Pages">
          <ul>
            {visible.map((p) => (
              <li key={p.id}>
                <a href={hrefOf(p.id)} aria-current={p === page ? 'page' : undefined}>
                  {p.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class="who" title={`member ${session.memberUuid}`}>
          {session.memberAddress} · {session.memberVersion}
        </span>
        {session.securityEnabled && (
          <button type="button" class="link" onClick={props.onLogout}>
            Sign out
          </button>
        )}
      </header>
      <main id="main" tabIndex={-1}>
        {body}
      </main>
    </>
  );
}

const root = document.getElementById('app');
if (root !== null) render(<App />, root);
// A failure outside Preact's rendering (a bug) is shown, not swallowed into a blank page.
addEventListener('unhandledrejection', (e) => console.error('console:', describe(e.reason)));
