import { auditServer } from 'graphql-http';
import { describe, expect, it } from 'vitest';
import { useTestServer } from './support/fixture.js';
import { type TestServer } from './support/server.js';

/** graphql-http's own GraphQL-over-HTTP audit suite, run against our /graphql. */
let server: TestServer;
let token: string;

useTestServer('pglite', { organization: 'Test Pools' }, async (t) => {
  ({ server } = t);
  ({ token } = t);
});

describe('GraphQL over HTTP audit', () => {
  it('passes every MUST audit (and reports the rest)', async () => {
    const results = await auditServer({
      url: `${server.url}/graphql`,
      // Every request to /graphql needs a token; the audits send none of their own.
      fetchFn: (input: RequestInfo | URL, init?: RequestInit) => {
        const headers = new Headers(init?.headers);
        headers.set('authorization', `Bearer ${token}`);
        return fetch(input, { ...init, headers });
      },
    });
    const failedMust = results.filter((r) => r.status !== 'ok' && r.name.startsWith('MUST'));
    expect(failedMust.map((r) => `${r.name}: ${r.status === 'ok' ? '' : r.reason}`)).toEqual([]);
    expect(results.length).toBeGreaterThan(20);
    const failedShould = results.filter((r) => r.status !== 'ok').map((r) => r.name);
    console.info(`graphql-http audit: ${results.length - failedShould.length}/${results.length} ok`, failedShould);
  });

  it('answers a request without a token with 401 and a GraphQL-shaped UNAUTHENTICATED error', async () => {
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      errors: [{ message: expect.stringContaining('Bearer'), extensions: { code: 'UNAUTHENTICATED' } }],
    });
  });
});
