import { useEffect, useState } from 'react';

/**
 * Screens are addressed by the URL's hash (`#/customers/<id>`), so the server serves one page at
 * /app, reloads keep the screen, and the browser's back button works.
 */
export interface Route {
  screen: string;
  id: string | null;
}

export function parseRoute(hash: string, home = 'board'): Route {
  const [screen, id] = hash.replace(/^#\/?/, '').split('/');
  return { screen: screen || home, id: id ? decodeURIComponent(id) : null };
}

/** The current screen; `home` when the hash names none. */
export function useRoute(home?: string): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash, home));
  useEffect(() => {
    const changed = () => setRoute(parseRoute(location.hash, home));
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}

export const href = (screen: string, id?: string) => `#/${screen}${id ? `/${encodeURIComponent(id)}` : ''}`;

export function navigate(screen: string, id?: string): void {
  location.hash = href(screen, id);
}
