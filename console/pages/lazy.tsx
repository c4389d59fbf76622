// A page whose code is fetched on its first visit (a chunk of the build, see
// scripts/build-console.mjs): Loading until it arrives, the failure shown if it cannot.

import type { FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ErrorView, Loading } from '../ui.js';
import type { PageProps } from './index.js';

export function lazyPage(load: () => Promise<FunctionComponent<PageProps>>): FunctionComponent<PageProps> {
  let loaded: FunctionComponent<PageProps> | undefined;
  let pending: Promise<FunctionComponent<PageProps>> | undefined;
  return function LazyPage(props: PageProps) {
    const [, setReady] = useState(0);
    const [error, setError] = useState<unknown>(undefined);
    useEffect(() => {
      if (loaded !== undefined) return;
      pending ??= load();
      let live = true;
      pending.then(
        (c) => {
          loaded = c;
          if (live) setReady((n) => n + 1);
        },
        (e: unknown) => {
          // The next visit tries again (a member restarted with another build, a network blip).
          pending = undefined;
          if (live) setError(e);
        },
      );
      return () => {
        live = false;
      };
    }, []);
    if (loaded !== undefined) {
      const Page = loaded;
      return <Page {...props} />;
    }
    return error !== undefined ? <ErrorView error={error} /> : <Loading />;
  };
}
