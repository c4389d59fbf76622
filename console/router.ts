// The console's router: the page is the URL's hash (`#/cluster`), so the member serves one
// index.html and a reload or a shared link opens the same page. A page may have a rest
// (`#/maps/orders`): the part after its id, given to the page.

import { useEffect, useState } from 'preact/hooks';

export interface Location {
  readonly page: string;
  /** The path after the page id, decoded segments. */
  readonly rest: readonly string[];
}

export function parseHash(hash: string): Location {
  const parts = hash.replace(/^#\/?/, '').split('/').filter((p) => p !== '');
  const decoded = parts.map((p) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return p;
    }
  });
  return { page: decoded[0] ?? '', rest: decoded.slice(1) };
}

export function hrefOf(page: string, ...rest: string[]): string {
  return `#/${[page, ...rest].map(encodeURIComponent).join('/')}`;
}

export function useLocation(): Location {
  const [loc, setLoc] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const on = (): void => setLoc(parseHash(location.hash));
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return loc;
}
