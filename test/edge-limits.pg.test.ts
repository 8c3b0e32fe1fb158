import http from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse, specifiedRules, validate } from 'graphql';
import type { HttpConfig } from '../server/config.js';
import { limitRules } from '../server/transports/graphql/limits.js';
import { buildGraphQLSchema } from '../server/transports/graphql/schema.js';
import { openStore } from '../server/storage/open.js';
import { caller, ok, tokenFor } from './support/api.js';
import { TEST_DATABASE_URL, engines, openTestStore, type TestStore } from './support/engines.js';
import { openEventStream, type EventStream } from './support/event-stream.js';
import { errorCodes, newOrganization, startTestServer, type TestServer } from './support/server.js';
import { rawRequest } from './support/raw-http.js';
import { pullChanges } from './support/sync.js';

/** The limits that keep one client from hurting every tenant. */
describe.each(engines)('limits on %s', (engine) => {
  let store: TestStore;
  const servers: TestServer[] = [];

  beforeAll(async () => {
    store = await openTestStore(engine);
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  afterAll(async () => {
    await store?.drop();
  });

  async function server(http: Partial<HttpConfig>) {
    const started = await startTestServer(store.db, { http });
    servers.push(started);
    return started;
  }

  it('a flooding token is refused with 429 RATE_LIMITED and Retry-After, by every process sharing the store; others are not', async () => {
    const limits = { rateLimitPerMinute: 10, syncRateLimitPerMinute: 100 };
    // Two server processes over one database spend from one budget.
    const [a, b] = [await server(limits), await server(limits)];
    const { token } = await newOrganization(store.db, 'Flood Pools');
    const bystander = (await newOrganization(store.db, 'Quiet Pools')).token;
    const statuses: number[] = [];
    let refused: Response | null = null;
    for (let i = 0; i < 30 && !refused; i++) {
      const res = await postQuery(i % 2 ? a : b, token, '{ viewer { role } }');
      statuses.push(res.status);
      if (res.status === 429) refused = res;
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(refused).not.toBeNull();
    const retryAfter = Number(refused!.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    const body = (await refused!.json()) as { errors: { message: string; extensions: { code: string } }[] };
    expect(body.errors[0]!.extensions.code).toBe('RATE_LIMITED');
    expect(body.errors[0]!.message).toContain('RATE_LIMIT_PER_MINUTE');
    // REST answers the same way, in its own shape.
    const rest = await fetch(`${a.url}/bulk-operations`, { headers: { authorization: `Bearer ${token}` } });
    expect(rest.status).toBe(429);
    expect(((await rest.json()) as any).error.code).toBe('RATE_LIMITED');
    // Sync has its own budget: the same token still syncs, and another token is untouched.
    expect((await pullChanges(a, token, 'customers')).status).toBe(200);
    expect((await postQuery(b, bystander, '{ viewer { role } }')).status).toBe(200);
  });

  it('failed authentication is limited per client address, by every process; a token known valid is served even from that address', async () => {
    const limits = { authFailuresPerMinute: 5 };
    const [a, b] = [await server(limits), await server(limits)];
    const { token } = await newOrganization(store.db, 'Guessed Pools');
    // Client addresses as a proxy on this machine passes them on (TRUST_PROXY's default trusts loopback).
    const from = (address: string, s: TestServer, bearer: string) => postQuery(s, bearer, '{ viewer { role } }', { 'x-forwarded-for': address });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await from('203.0.113.7', i % 2 ? a : b, `pst_guess${i}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    const refused = await from('203.0.113.7', a, 'pst_guess-again');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const body = (await refused.json()) as any;
    expect(body.errors[0].extensions.code).toBe('RATE_LIMITED');
    expect(body.errors[0].message).toContain('AUTH_FAILURES_PER_MINUTE');
    // REST and sync refuse that address the same way, in their own shape, before looking the token up.
    const rest = await fetch(`${b.url}/sync/customers/pull`, { headers: { authorization: 'Bearer pst_guess', 'x-forwarded-for': '203.0.113.7' } });
    expect(rest.status).toBe(429);
    expect(((await rest.json()) as any).error.code).toBe('RATE_LIMITED');
    // A good token neither process has seen is served from that address: it may be live
    // (operations/live-tokens.ts), so it earns its lookup, which finds it...
    expect((await from('203.0.113.7', a, token)).status).toBe(200);
    // ...and from another address, on both processes, where its own failures are its own.
    expect((await from('198.51.100.9', a, token)).status).toBe(200);
    expect((await from('198.51.100.9', b, token)).status).toBe(200);
    expect((await from('198.51.100.9', b, 'pst_typo')).status).toBe(401);
    expect((await postQuery(a, token, '{ viewer { role } }')).status).toBe(200);
    // Known valid now, it is served from the refused address too, by both; the guesses still are not.
    expect((await from('203.0.113.7', a, token)).status).toBe(200);
    expect((await from('203.0.113.7', b, token)).status).toBe(200);
    expect((await from('203.0.113.7', b, 'pst_guess-once-more')).status).toBe(429);
  });

  it('a query nested too deep is refused before it runs, in under 10 ms, naming the limit', async () => {
    const s = await server({ graphqlMaxDepth: 12 });
    const { token } = await newOrganization(store.db, 'Deep Pools');
    const ofTypes = 'ofType { '.repeat(20) + 'name' + ' }'.repeat(20);
    const bomb = `{ __type(name: "Quote") { fields { type { ${ofTypes} } } } }`;
    const res = await postQuery(s, token, bomb);
    const body = (await res.json()) as any;
    expect(res.status).toBe(400);
    expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(body.errors[0].message).toContain('GRAPHQL_MAX_DEPTH');
    expect(body.data).toBeUndefined();
    // The refusal is validation: parsing and the limit rules, with nothing executed. Timed here
    // without the HTTP round trip and authentication, which a loaded CI machine makes noisy.
    const schema = buildGraphQLSchema();
    const refuse = () => validate(schema, parse(bomb), [...specifiedRules, ...limitRules({ maxDepth: 12, maxCost: 10_000 }, {})]);
    const timings: number[] = [];
    for (let i = 0; i < 6; i++) {
      const started = performance.now();
      expect(refuse().map((e) => e.message).join()).toContain('GRAPHQL_MAX_DEPTH');
      timings.push(performance.now() - started);
    }
    expect(Math.min(...timings)).toBeLessThan(10);
  });

  it('a query that would return too many records is refused with the limit named; an ordinary page is not', async () => {
    const s = await server({ graphqlMaxCost: 10_000 });
    const { token } = await newOrganization(store.db, 'Costly Pools');
    const page = 'infiniteQuotes(first: 100) { edges { node { id lineItems { id } customer { id bodiesOfWater { id } } } } }';
    const aliases = Array.from({ length: 50 }, (_, i) => `q${i}: ${page}`).join('\n');
    const refused = await postQuery(s, token, `{ ${aliases} }`);
    const body = (await refused.json()) as any;
    expect(refused.status).toBe(400);
    expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(body.errors[0].message).toContain('GRAPHQL_MAX_COST');
    const ordinary = await caller(s, token)(`{ ${page} }`);
    expect(ok(ordinary).infiniteQuotes.edges).toEqual([]);
    // The explorer's schema load (the standard introspection query) is not a bomb.
    const { getIntrospectionQuery } = await import('graphql');
    expect(ok(await caller(s, token)(getIntrospectionQuery())).__schema.types.length).toBeGreaterThan(50);
  });

  it("one token holds a bounded number of open sync streams: one more closes the token's oldest", async () => {
    const s = await server({ maxStreamsPerToken: 2 });
    const { token } = await newOrganization(store.db, 'Streaming Pools');
    const technician = await tokenFor(s, token, 'TECHNICIAN');
    const other = technician.token;
    const streams: EventStream[] = [await openEventStream(s, token), await openEventStream(s, token), await openEventStream(s, other)];
    try {
      // A device reconnecting after its connection died silently: its old stream still looks open here.
      streams.push(await openEventStream(s, token));
      await streams[0]!.ended; // the oldest of that token was closed
      const live = streams.slice(1);
      for (const stream of live) await stream.next((e) => e.type === 'RESYNC');
      // The newer two of the token and the other token's stream still receive changes.
      // A customer of the technician's, so it is in their phone's scope too.
      await caller(s, token)(`mutation($t: ID) { createCustomer(input: {lastName: "Still Streaming", service: {technicianId: $t}}) { id } }`, { t: technician.apiToken.userId });
      for (const stream of live) await stream.next((e) => e.type === 'changes' && e.collection === 'customers');
      expect(await Promise.race([streams[1]!.ended.then(() => 'ended'), new Promise((r) => setTimeout(() => r('open'), 200))])).toBe('open');
    } finally {
      for (const stream of streams) stream.close();
    }
  });

  it('a body declared larger than its route accepts is refused at once with 413, and the connection closed unread', async () => {
    const s = await server({});
    const { token } = await newOrganization(store.db, 'Huge Body Pools');
    // Every route that reads a body; 10 GB declared, not one byte of it sent.
    const routes = [
      ['/graphql', 'application/json'],
      ['/sync/customers/push', 'application/json'],
      ['/services/some-visit/photos', 'multipart/form-data; boundary=x'],
      ['/quotes/some-quote/photos', 'multipart/form-data; boundary=x'],
      ['/quotes/some-quote/pdf', 'multipart/form-data; boundary=x'],
      ['/organization/logo', 'multipart/form-data; boundary=x'],
      ['/bulk-operations', 'application/json'],
      ['/inventory/transfer', 'application/json'],
      ['/admin/organizations', 'application/json'],
    ];
    const answers = await Promise.all(
      routes.map(([route, type]) =>
        rawRequest(s.url, `POST ${route} HTTP/1.1
          Host: 127.0.0.1
          Authorization: Bearer ${token}
          Content-Type: ${type}
          Content-Length: 10000000000`),
      ),
    );
    answers.forEach((answer, i) => {
      const route = routes[i]![0];
      expect(answer.status, route).toBe(413);
      expect(answer.headers, route).toMatch(/^connection: close$/im);
      const body = JSON.parse(answer.body) as any;
      const code = route === '/graphql' ? body.errors[0].extensions.code : body.error.code;
      expect(code, route).toBe('PAYLOAD_TOO_LARGE');
      // Decided and sent as soon as the headers were in, and the server hung up without the body.
      expect(answer.answeredMs, route).toBeLessThan(2000);
      expect(answer.closedMs, route).not.toBeNull();
      expect(answer.closedMs!, route).toBeLessThan(2000);
    });
    // Without a token too: the size is refused before anything else (no database lookup).
    const anonymous = await rawRequest(s.url, `POST /sync/customers/push HTTP/1.1
      Host: 127.0.0.1
      Content-Type: application/json
      Content-Length: 40000000`);
    expect(anonymous.status).toBe(413);
    // A body within the limit is read and answered as before, on a connection that stays usable.
    expect((await postQuery(s, token, '{ viewer { role } }')).status).toBe(200);
  });

  it('a request stuck behind the database is answered 503 TIMEOUT at the deadline, and the server goes on', async () => {
    const s = await server({ requestTimeoutMs: 300 });
    const { token } = await newOrganization(store.db, 'Stuck Pools');
    let release!: () => void;
    let locked!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    // Another transaction holds the tokens table: authentication cannot read it.
    const blocker = store.db.transaction(async (tx) => {
      await tx.query('lock table api_tokens in access exclusive mode');
      locked();
      await held;
    });
    await isLocked;
    try {
      const started = Date.now();
      const [graphql, pull] = await Promise.all([postQuery(s, token, '{ viewer { role } }'), fetch(`${s.url}/sync/customers/pull`, { headers: { authorization: `Bearer ${token}` } })]);
      expect(Date.now() - started).toBeLessThan(3000);
      expect(graphql.status).toBe(503);
      expect(errorCodes({ status: 503, ...((await graphql.json()) as object) })).toEqual(['TIMEOUT']);
      expect(pull.status).toBe(503);
      expect(((await pull.json()) as any).error.code).toBe('TIMEOUT');
    } finally {
      release();
      await blocker;
    }
    expect((await postQuery(s, token, '{ viewer { role } }')).status).toBe(200);
  });

  it('the deadline counts from when the body has arrived: a slow link is not a slow server', async () => {
    const s = await server({ requestTimeoutMs: 300 });
    const { token } = await newOrganization(store.db, 'Slow Link Pools');
    const body = JSON.stringify([{ newDocumentState: { id: crypto.randomUUID(), lastName: 'Slowly' } }]);
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(`${s.url}/sync/customers/push`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      // The body trickles in over 750 ms, more than twice the deadline.
      const third = Math.ceil(body.length / 3);
      req.write(body.slice(0, third));
      setTimeout(() => req.write(body.slice(third, 2 * third)), 375);
      setTimeout(() => req.end(body.slice(2 * third)), 750);
    });
    expect(status).toBe(200);
  });

  it.runIf(engine === 'postgres')('on PostgreSQL the same deadline cancels the statement itself', async () => {
    const db = await openStore({ databaseUrl: store.url ?? TEST_DATABASE_URL, statementTimeoutMs: 200 });
    try {
      const started = Date.now();
      await expect(db.query('select pg_sleep(5)')).rejects.toMatchObject({ kind: 'TIMEOUT' });
      expect(Date.now() - started).toBeLessThan(2000);
      expect((await db.query<{ one: number }>('select 1 as one')).rows[0]!.one).toBe(1);
    } finally {
      await db.close();
    }
  });
});

function postQuery(server: { url: string }, token: string, query: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.url}/graphql`, {
    method: 'POST',
    // The GraphQL-over-HTTP media type: a refused document is a 400 (with application/json, a 200).
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', authorization: `Bearer ${token}`, ...headers },
    body: JSON.stringify({ query }),
  });
}
