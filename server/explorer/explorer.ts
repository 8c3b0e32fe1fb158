import { createGraphiQLFetcher } from '@graphiql/toolkit';
import { GraphiQL } from 'graphiql';
import { createElement, useMemo, useState } from 'react';
import { createRoot } from 'react-dom/client';
import 'graphiql/style.css';

/**
 * The GraphQL explorer served at GET /graphql to a browser: GraphiQL, bundled by esbuild at
 * `npm start` (no CDN; the server may have no internet). The token a user pastes is kept in this
 * browser's localStorage and sent as `Authorization: Bearer`, never as a cookie.
 */
const TOKEN_KEY = 'pool-explorer-token';

function Explorer() {
  const [token, setToken] = useState(() => localStorage.getItem(TOKEN_KEY) ?? '');
  const fetcher = useMemo(
    () => createGraphiQLFetcher({ url: `${location.origin}/graphql`, headers: token ? { authorization: `Bearer ${token}` } : {} }),
    [token],
  );
  const saveToken = (value: string) => {
    setToken(value.trim());
    localStorage.setItem(TOKEN_KEY, value.trim());
  };
  return createElement(
    'div',
    { className: 'explorer' },
    createElement(
      'form',
      { className: 'token-bar', onSubmit: (e: Event) => e.preventDefault() },
      createElement('label', { htmlFor: 'token' }, 'API token'),
      createElement('input', {
        id: 'token',
        type: 'password',
        autoComplete: 'off',
        placeholder: 'pst_... (paste a token; it stays in this browser)',
        value: token,
        onChange: (e: { target: HTMLInputElement }) => saveToken(e.target.value),
      }),
      createElement('a', { href: '/' }, 'Home'),
    ),
    createElement(GraphiQL, { fetcher, defaultQuery: '# Paste a token above, then run:\n{\n  viewer { role organization { name } }\n}\n' }),
  );
}

createRoot(document.getElementById('explorer')!).render(createElement(Explorer));
