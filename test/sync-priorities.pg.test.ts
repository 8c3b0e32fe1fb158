import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { firstValueFrom } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { createPoolClient, type PoolClient } from '../client-sdk/index.js';
import { bandRange } from '../shared/index.js';
import { caller, ok, tokenFor } from './support/api.js';
import { engines } from './support/engines.js';
import { useTestServer } from './support/fixture.js';
import type { TestServer } from './support/server.js';
import { pullAll, pushChanges } from './support/sync.js';

/**
 * A first sync brings today's route first (shared/sync/priorities.ts): the protocol's band pulls
 * answer only the rows of the device's own feed in the band, and the SDK pulls the bands before
 * any feed, says when each is on the device, and still ends with exactly the device's scope when
 * the office writes while the bands and the feed are read.
 */
const DAY = 86_400_000;
const COLLECTIONS = ['customers', 'services'];

describe.each(engines)('priority bands of a first sync, on %s', (engine) => {
  let server: TestServer;
  let office: string;
  let gql: ReturnType<typeof caller>;
  let tech: { token: string; id: string };
  let other: { token: string; id: string };
  const open: PoolClient[] = [];

  /** Visits of the technician's: today, earlier, later; and some of another technician's. */
  const today: string[] = [];
  const todaysCustomers = new Set<string>();

  const at = (dayOffset: number, hour: number) => {
    const d = new Date();
    return new Date(d.getFullYear(), d.getMonth(), d.getDate() + dayOffset, hour).toISOString();
  };
  const customer = async (name: string, technicianId: string) =>
    ok(await gql('mutation($n: String!, $t: ID) { createCustomer(input: {lastName: $n, service: {technicianId: $t}}) { id } }', { n: name, t: technicianId })).createCustomer.id as string;
  const visit = async (customerId: string, technicianId: string, startTime: string, notes = 'Weekly') =>
    ok(await gql('mutation($c: ID, $t: ID, $s: DateTime, $n: String) { createService(input: {customerId: $c, newTechnicianId: $t, startTime: $s, notes: $n}) { id } }', { c: customerId, t: technicianId, s: startTime, n: notes }))
      .createService.id as string;

  useTestServer(engine, { organization: 'Morning Route Pools' }, async (t) => {
    ({ server } = t);
    office = t.token;
    gql = caller(server, office);
    const a = await tokenFor(server, office, 'TECHNICIAN');
    const b = await tokenFor(server, office, 'TECHNICIAN');
    tech = { token: a.token, id: a.apiToken.userId };
    other = { token: b.token, id: b.apiToken.userId };
    const mine = [];
    for (let i = 0; i < 12; i++) mine.push(await customer(`Mine ${i}`, tech.id));
    // History and later visits first: the bands' rows come last in the feed, so a band that moved
    // the feed's checkpoint would skip everything before them.
    for (const [i, c] of mine.slice(3).entries()) {
      await visit(c, tech.id, at(-(i + 2) * 3, 10));
      await visit(c, tech.id, at(9 + i, 10));
    }
    for (const [i, c] of mine.slice(0, 3).entries()) {
      today.push(await visit(c, tech.id, at(0, 9 + i)));
      todaysCustomers.add(c);
    }
    const theirs = await customer('Theirs', other.id);
    await visit(theirs, other.id, at(0, 11));
  });
  afterEach(async () => {
    while (open.length) await open.pop()!.close();
  });

  async function bandPull(token: string, collection: string, range: { from: string; to: string }, checkpoint = 0, limit = 1000) {
    const query = new URLSearchParams({ checkpoint: String(checkpoint), limit: String(limit), ...range });
    const res = await fetch(`${server.url}/sync/${collection}/pull?${query}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, body: (await res.json()) as any };
  }

  it("answers a band pull with the device's own rows in the band, and nothing else", async () => {
    const range = bandRange('today', new Date());
    const visits = await bandPull(tech.token, 'services', range);
    expect(visits.status).toBe(200);
    expect(visits.body.documents.map((d: any) => d.id).sort()).toEqual([...today].sort());
    const customers = await bandPull(tech.token, 'customers', range);
    expect(customers.body.documents.map((d: any) => d.id).sort()).toEqual([...todaysCustomers].sort());

    // The office holds every technician's visits: its band has the other technician's too.
    const officeBand = await bandPull(office, 'services', range);
    expect(officeBand.body.documents).toHaveLength(today.length + 1);

    const week = await bandPull(tech.token, 'services', bandRange('week', new Date()));
    const times = week.body.documents.map((d: any) => Date.parse(d.startTime));
    expect(times.every((t: number) => t >= Date.parse(bandRange('week', new Date()).from) && t < Date.parse(bandRange('week', new Date()).to))).toBe(true);
  });

  it('pages a band exactly: page by page, every row of it once, in position order, on every kind of feed', async () => {
    const officeToken = (await tokenFor(server, office, 'OFFICE')).token;
    const range = bandRange('week', new Date());
    for (const token of [tech.token, office, officeToken]) {
      for (const collection of COLLECTIONS) {
        const whole = (await bandPull(token, collection, range)).body.documents.map((d: any) => d.id).sort();
        expect(whole.length).toBeGreaterThan(1);
        const paged: string[] = [];
        const positions: number[] = [];
        for (let checkpoint = 0; ; ) {
          const page = (await bandPull(token, collection, range, checkpoint, 2)).body;
          paged.push(...page.documents.map((d: any) => d.id));
          positions.push(page.checkpoint.seq);
          if (page.documents.length < 2) break;
          checkpoint = page.checkpoint.seq;
        }
        expect([...paged].sort(), `${collection}`).toEqual(whole);
        expect(positions.slice(0, -1).every((p, i) => i === 0 || p > positions[i - 1]!)).toBe(true);
      }
    }
  });

  it('refuses a band it cannot serve, with words, and changes nothing', async () => {
    const half = await fetch(`${server.url}/sync/services/pull?from=${encodeURIComponent(new Date().toISOString())}`, { headers: { authorization: `Bearer ${tech.token}` } });
    expect(half.status).toBe(400);
    expect(((await half.json()) as any).error.message).toMatch(/from and to go together/);
    const now = Date.now();
    const year = await bandPull(tech.token, 'services', { from: new Date(now).toISOString(), to: new Date(now + 365 * DAY).toISOString() });
    expect(year.status).toBe(400);
    expect(year.body.error.message).toMatch(/at most 31 days/);
    const levels = await bandPull(tech.token, 'stockLevels', bandRange('today', new Date()));
    expect(levels.status).toBe(400);
    expect(levels.body.error.message).toMatch(/stockLevels has no priority band/);
  });

  it('leaves out of a full pull what a held band brought, and only that: rows changed or moved into the band since come', async () => {
    const range = bandRange('today', new Date());
    const visitsBand = await bandPull(tech.token, 'services', range);
    const customersBand = await bandPull(tech.token, 'customers', range);
    expect(Object.keys(visitsBand.body.heads).sort()).toEqual(COLLECTIONS);
    const positions = Object.fromEntries(COLLECTIONS.map((c) => [c, Math.min(visitsBand.body.heads[c], customersBand.body.heads[c])]));
    const heldAt = Object.entries(positions).map(([c, seq]) => `${c}:${seq}`).join(',');

    // After the band: one of its visits edited, a later visit moved into today (its customer was
    // not in the band, and has not changed itself).
    const [edited] = today as [string];
    await gql('mutation($id: ID!) { updateService(id: $id, input: {notes: "Dog in the yard"}) { id } }', { id: edited }).then(ok);
    const later = (await pullAll(server, tech.token, 'services')).documents.find((d: any) => !d._deleted && Date.parse(d.startTime) > Date.parse(range.to));
    expect(todaysCustomers.has(later.customerId)).toBe(false);
    await gql('mutation($id: ID!, $s: DateTime) { updateService(id: $id, input: {startTime: $s}) { id } }', { id: later.id, s: at(0, 15) }).then(ok);

    const feed = async (collection: string, held: Record<string, string>) => {
      const query = new URLSearchParams({ checkpoint: '0', limit: '1000', ...held });
      const res = await fetch(`${server.url}/sync/${collection}/pull?${query}`, { headers: { authorization: `Bearer ${tech.token}` } });
      return { status: res.status, body: (await res.json()) as any };
    };
    const held = { heldFrom: range.from, heldTo: range.to, heldAt };
    for (const collection of COLLECTIONS) {
      const band = (collection === 'services' ? visitsBand : customersBand).body.documents.map((d: any) => d.id as string);
      const whole = (await pullAll(server, tech.token, collection)).documents;
      const rest = await feed(collection, held);
      expect(rest.status).toBe(200);
      const sent = rest.body.documents.map((d: any) => d.id as string);
      const brought = new Set(band.filter((id: string) => !sent.includes(id)));
      // What the band brought and the feed left out, together with the feed, is the whole scope.
      expect([...new Set([...brought, ...sent])].sort(), collection).toEqual([...new Set(whole.map((d: any) => d.id as string))].sort());
      expect(rest.body.checkpoint.seq).toBe((await pullAll(server, tech.token, collection)).checkpoint);
      if (collection === 'services') {
        expect([...brought].sort()).toEqual(today.filter((id) => id !== edited).sort());
        expect(sent).toEqual(expect.arrayContaining([edited, later.id]));
        expect(rest.body.documents.find((d: any) => d.id === edited).notes).toBe('Dog in the yard');
      } else {
        // The edited visit's customer comes again too: only visits unchanged since vouch for theirs.
        const editedCustomer = visitsBand.body.documents.find((d: any) => d.id === edited).customerId;
        expect([...brought].sort()).toEqual([...todaysCustomers].filter((c) => c !== editedCustomer).sort());
        expect(sent, "the moved visit's customer, which the band never brought").toContain(later.customerId);
      }
    }
    // Without a position for the customers' visits, nothing of the customers is left out.
    const partial = await feed('customers', { ...held, heldAt: `customers:${positions.customers}` });
    expect(partial.status, JSON.stringify(partial.body)).toBe(200);
    expect(partial.body.documents.map((d: any) => d.id).sort()).toEqual((await pullAll(server, tech.token, 'customers')).documents.map((d: any) => d.id).sort());
    // Another device's band leaves out nothing the band did not bring.
    const officeWhole = (await pullAll(server, office, 'services')).documents.length;
    expect((await fetch(`${server.url}/sync/services/pull?${new URLSearchParams({ checkpoint: '0', limit: '1000', heldFrom: range.from, heldTo: range.to, heldAt: 'services:0,customers:0' })}`, { headers: { authorization: `Bearer ${office}` } }).then((r) => r.json()) as any).documents).toHaveLength(officeWhole);

    for (const [query, words] of [
      [{ heldFrom: range.from, heldTo: range.to }, /heldFrom, heldTo and heldAt go together/],
      [{ ...held, heldAt: 'services=3' }, /heldAt lists band collections and positions/],
      [{ ...held, heldTo: range.from }, /held band: to must be after from/],
      [{ ...held, ...range }, /a band pull names no held band/],
    ] as const) {
      const refused = await feed('services', query as Record<string, string>);
      expect(refused.status).toBe(400);
      expect(refused.body.error.message).toMatch(words);
    }
  });

  /** A technician's new phone; `gate` may hold its requests, `log` records every URL it asks for. */
  async function phone(fetchVia: typeof fetch = fetch) {
    const client = await createPoolClient({ baseUrl: server.url, token: tech.token, storage: getRxStorageMemory(), name: `phone-${Math.random().toString(36).slice(2)}`, collections: COLLECTIONS, retryMs: 50, fetch: fetchVia });
    open.push(client);
    return client;
  }
  const heldIds = async (client: PoolClient, collection: 'customers' | 'services') => (await client.db.collections[collection]!.find().exec()).map((d) => d.id).sort();
  const scopeIds = async (collection: string) => (await pullAll(server, tech.token, collection)).documents.filter((d: any) => !d._deleted).map((d: any) => d.id as string).sort();

  it("pulls today's route before anything else, says so, and ends with the whole scope", async () => {
    const asked: string[] = [];
    const client = await phone((input, init) => {
      asked.push(String(input));
      return fetch(input, init);
    });
    client.sync.start();
    await client.sync.awaitReady('today', { timeoutMs: 20_000 });
    const route = await heldIds(client, 'services');
    expect(route, "today's visits are on the phone once 'today' is ready").toEqual(expect.arrayContaining(today));
    expect(await heldIds(client, 'customers')).toEqual(expect.arrayContaining([...todaysCustomers]));
    await client.sync.awaitInSync({ timeoutMs: 20_000 });

    const pulls = asked.filter((url) => url.includes('/pull?'));
    const firstFeedPull = pulls.findIndex((url) => !url.includes('from='));
    const bandPulls = pulls.filter((url) => url.includes('from='));
    expect(bandPulls.length, 'both bands of both collections').toBe(4);
    for (const collection of COLLECTIONS) {
      const first = pulls.slice(firstFeedPull).find((url) => url.includes(`/${collection}/pull?`));
      expect(first, 'the full pull names the week band, so it leaves out what the band brought').toContain('heldAt=');
    }
    expect(pulls.slice(0, firstFeedPull).every((url) => url.includes('from=')), 'every band before the first feed pull').toBe(true);
    const status = await firstValueFrom(client.sync.status$);
    expect(status.ready).toEqual(['today', 'week']);
    expect(status.firstSyncDone).toBe(true);
    expect(await heldIds(client, 'services')).toEqual(await scopeIds('services'));
    expect(await heldIds(client, 'customers')).toEqual(await scopeIds('customers'));
  });

  it('misses nothing and keeps nothing stale when the office writes between the bands and the feed', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const client = await phone(async (input, init) => {
      const url = String(input);
      // The first sync's feed pull waits while the office writes: the bands are on the phone by then.
      if (url.includes('/services/pull?') && !url.includes('from=')) await held;
      return fetch(input, init);
    });
    client.sync.start();
    await client.sync.awaitReady('week', { timeoutMs: 20_000 });
    const [edited, moved, deleted] = today as [string, string, string];
    expect(await heldIds(client, 'services')).toEqual(expect.arrayContaining([edited, moved, deleted]));

    await gql('mutation($id: ID!) { updateService(id: $id, input: {notes: "Gate code changed"}) { id } }', { id: edited }).then(ok);
    await gql('mutation($id: ID!, $t: ID) { updateService(id: $id, input: {newTechnicianId: $t}) { id } }', { id: moved, t: other.id }).then(ok);
    const { documents } = await pullAll(server, office, 'services');
    const stored = documents.findLast((d: any) => d.id === deleted);
    expect((await pushChanges(server, office, 'services', [{ assumedMasterState: stored, newDocumentState: { ...stored, _deleted: true } }])).status).toBe(200);
    const added = await visit([...todaysCustomers][0]!, tech.id, at(0, 16), 'Added while syncing');
    // The last visit of all moves into today: its customer (last seen months ago) was in no band.
    const last = documents.filter((d: any) => !d._deleted && d.newTechnicianId === tech.id).sort((a: any, b: any) => Date.parse(b.startTime) - Date.parse(a.startTime))[0];
    await gql('mutation($id: ID!, $s: DateTime) { updateService(id: $id, input: {startTime: $s}) { id } }', { id: last.id, s: at(0, 17) }).then(ok);

    release();
    await client.sync.awaitInSync({ timeoutMs: 20_000 });
    const visits = await heldIds(client, 'services');
    expect(visits).toEqual(await scopeIds('services'));
    expect(visits).toContain(added);
    expect(visits).not.toContain(moved);
    expect(visits).not.toContain(deleted);
    expect((await client.db.collections.services!.findOne(edited).exec())?.notes).toBe('Gate code changed');
    expect((await client.db.collections.services!.findOne(last.id).exec())?.startTime).toBe(at(0, 17));
    expect(await heldIds(client, 'customers')).toContain(last.customerId);
    expect(await heldIds(client, 'customers')).toEqual(await scopeIds('customers'));
  });
});
