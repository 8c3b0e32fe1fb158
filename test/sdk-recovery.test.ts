import { firstValueFrom } from 'rxjs';
import { filter } from 'rxjs/operators';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPoolClient, type PoolClient, type SyncStatus } from '../client-sdk/index.js';
import { caller, ok, tokenFor } from './support/api.js';
import { startFaultProxy, type FaultProxy } from './support/fault-proxy.js';
import { useTestServer } from './support/fixture.js';
import { type TestServer } from './support/server.js';
import { serverDocument } from './support/sync.js';

/**
 * A device back in sync soon after signal returns, and a refusal never taken for an outage. The
 * server heartbeats every 500 ms, so a stream that died silently is found within 1.25 s; requests keep the SDK's 30 s deadline, so anything faster than that is the SDK's doing.
 */
describe('devices back in sync; refusals are not outages', () => {
  let server: TestServer;
  let proxy: FaultProxy;
  let office: string;
  let gql: ReturnType<typeof caller>;
  let customerId: string;
  const open: PoolClient[] = [];

  useTestServer('pglite', { organization: 'Recovering Pools', server: { heartbeatMs: 500, syncBodyLimitBytes: 12_000 } }, async (t) => {
    ({ server } = t);
    office = t.token;
    gql = caller(server, office);
    customerId = ok(await gql(`mutation { createCustomer(input: {firstName: "Back", lastName: "Again"}) { id } }`)).createCustomer.id;
  });
  beforeEach(async () => {
    proxy = await startFaultProxy(server.url);
  });
  afterEach(async () => {
    while (open.length) await open.pop()!.close();
    await proxy.close();
  });

  async function device(token: string, options: Partial<Parameters<typeof createPoolClient>[0]> = {}) {
    const c = await createPoolClient({ baseUrl: proxy.url, token, collections: ['customers', 'services'], retryMs: 50, name: `r${Math.random().toString(36).slice(2)}`, ...options });
    open.push(c);
    return c;
  }
  /** A new technician, given the shared customer (so their phone holds it). */
  const newTechnician = async () => {
    const created = await tokenFor(server, office, 'TECHNICIAN');
    ok(await gql(`mutation($id: ID!, $t: ID) { updateCustomer(id: $id, input: {service: {technicianId: $t}}) { id } }`, { id: customerId, t: created.apiToken.userId }));
    return created;
  };
  const technician = async () => (await newTechnician()).token;
  const statusWhere = (c: PoolClient, when: (s: SyncStatus) => boolean, timeoutMs = 5000) =>
    Promise.race([
      firstValueFrom(c.sync.status$.pipe(filter(when))),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`status not reached within ${timeoutMs} ms`)), timeoutMs)),
    ]);

  it('a push hanging on a connection that died is given up and sent again as soon as the network is back', async () => {
    const c = await device(await technician());
    c.sync.start();
    await c.sync.awaitInSync();
    proxy.setMode('black-hole'); // open connections die silently; new ones are never answered
    const visit = await c.recordVisit({ customerId, notes: 'pushed into the dark' });
    await new Promise((r) => setTimeout(r, 1000));
    const healed = Date.now();
    proxy.setMode('pass'); // the dead connections stay dead: no reset, nothing to tell the device
    await c.sync.awaitInSync({ timeoutMs: 10_000 });
    // Well inside the push's 30 s deadline: the next probe after the heal (one at most every 2 s
    // while a reconnect hangs in the dark) shows the network is back, and the push is sent again.
    // About 3 s here alone; 5.1 s once in a full CI run on two loaded cores, so the bound leaves room.
    expect(Date.now() - healed).toBeLessThan(8000);
    expect(await serverDocument(server, office, 'services', visit.id)).toMatchObject({ notes: 'pushed into the dark' });
    expect((await firstValueFrom(c.sync.status$)).state).toBe('online');
  });

  it('a revoked token stops sync and says the device is signed out, without retrying', async () => {
    const created = await newTechnician();
    const requests: string[] = [];
    const counting: typeof fetch = (input, init) => (requests.push(String(input)), fetch(input, init));
    const c = await device(created.token, { fetch: counting });
    c.sync.start();
    await c.sync.awaitInSync();
    const tokenId = ok(await gql(`{ apiTokens { id userId } }`)).apiTokens.find((t: { userId: string }) => t.userId === created.apiToken.userId).id;
    ok(await gql(`mutation($id: ID!) { revokeApiToken(id: $id) { id } }`, { id: tokenId }));
    await c.recordVisit({ customerId, notes: 'written after the revocation' });
    const status = await statusWhere(c, (s) => s.state === 'signed-out');
    expect(status).toMatchObject({ state: 'signed-out', errorKind: 'signed-out', online: false, pendingPushes: 1 });
    const seen = requests.length;
    await new Promise((r) => setTimeout(r, 1500));
    expect(requests.length).toBe(seen); // no retries: none could succeed
    await expect(c.sync.awaitInSync()).rejects.toThrow();
  });

  it('429 waits the time the server asks for, whatever wakes sync meanwhile, then goes on', async () => {
    let refuseUntil = 0;
    const requests: number[] = [];
    const limited: typeof fetch = async (input, init) => {
      if (String(input).includes('/pull')) {
        requests.push(Date.now());
        if (Date.now() < refuseUntil) return new Response(JSON.stringify({ error: { code: 'RATE_LIMITED', message: 'Too many requests' } }), { status: 429, headers: { 'retry-after': '2' } });
      }
      return fetch(input, init);
    };
    const c = await device(await technician(), { fetch: limited });
    refuseUntil = Date.now() + 1000;
    c.sync.start();
    const status = await statusWhere(c, (s) => s.state === 'rate-limited');
    expect(status.errorKind).toBe('rate-limited');
    const refusedAt = requests.at(-1)!;
    await c.recordVisit({ notes: 'written while waiting' }); // wakes sync: it still waits
    await c.sync.awaitInSync({ timeoutMs: 10_000 });
    const next = requests.find((t) => t > refusedAt)!;
    expect(next - refusedAt).toBeGreaterThanOrEqual(1900);
    expect((await firstValueFrom(c.sync.status$)).state).toBe('online');
  });

  it('a change too large for the server is set aside with its reason; the others go through', async () => {
    const c = await device(await technician());
    const small = [await c.recordVisit({ notes: 'small one' }), await c.recordVisit({ notes: 'small two' })];
    const big = await c.recordVisit({ notes: 'x'.repeat(15_000) }); // valid, but over the server's 12 KB body limit
    c.sync.start();
    await c.sync.awaitInSync({ timeoutMs: 10_000 });
    for (const v of small) expect(await serverDocument(server, office, 'services', v.id)).toMatchObject({ notes: v.notes });
    expect(await serverDocument(server, office, 'services', big.id)).toBeUndefined();
    expect(await statusWhere(c, (s) => s.refusedChanges === 1)).toMatchObject({ pendingPushes: 0, refusedChanges: 1 });
    expect(await c.sync.refusedChanges()).toEqual([{ collection: 'services', id: big.id, reason: expect.stringMatching(/larger than the server accepts/) }]);
    // Changed again, it is a new change, and this one fits.
    await c.updateVisit(big.id, { notes: 'shortened' });
    await c.sync.awaitInSync({ timeoutMs: 10_000 });
    expect(await serverDocument(server, office, 'services', big.id)).toMatchObject({ notes: 'shortened' });
    expect(await c.sync.refusedChanges()).toEqual([]);
  });

  it('a malformed answer or event is a clear protocol error in status$, not a crash', async () => {
    const malformed: typeof fetch = async (input, init) => {
      const url = String(input);
      if (url.includes('/sync/stream')) {
        const events = 'data: {"type":"RESYNC","heartbeatMs":500}\n\ndata: {"type":"changes","collection":"services"}\n\n';
        return new Response(events, { status: 200, headers: { 'content-type': 'text/event-stream' } });
      }
      if (url.includes('/services/pull')) return new Response('{"documents":[{"notes":"no id"}],"checkpoint":{"seq":1}}', { status: 200 });
      return fetch(input, init);
    };
    const c = await device(await technician(), { fetch: malformed });
    c.sync.start();
    const stream = await statusWhere(c, (s) => /live stream: an event is not the protocol/.test(s.lastError ?? ''));
    expect(stream.errorKind).toBe('protocol');
    const pull = await statusWhere(c, (s) => /pull services: the answer is not the protocol/.test(s.lastError ?? ''));
    expect(pull).toMatchObject({ errorKind: 'protocol' });
    expect(pull.lastError).toMatch(/documents/);
  });
});
