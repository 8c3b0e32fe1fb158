import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { openStore } from '../../server/storage/open.js';
import { provisionOrganization } from '../../server/operations/organization.js';
import { tokenFor } from '../support/api.js';
import { startTestServer } from '../support/server.js';

/**
 * Tabs sharing one replica (BENCH_ONLY=tabs), in Debian's Chromium on a profile on disk, two
 * pages of one origin (client-sdk/replication/README.md says what it decided from these):
 * - which writes reach a query open in the other tab, and how soon, with RxDB's multiInstance off,
 *   on but the storage passing nothing on (the SDK's storage as it was), and on with the storage
 *   passing its changes on (addRxStorageMultiInstanceSupport);
 * - what passing changes on costs a pull: 20 pages of 1,000 visits written as the puller writes
 *   them, multiInstance off and on, alone and with a second tab showing a live count of them;
 * - a Web Lock taken and given back (the write lock every replica write takes when tabs share);
 * - a client's local edit (`client.patch`) alone and shared;
 * - a leader tab closed: how soon the other tab's client leads and its stream is up, and how soon
 *   RxDB's leader-election plugin (`db.waitForLeadership()`) hands over.
 */
const LAUNCH = { executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] };
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** What the pages get: the replica's internals, and the SDK as an app has it. */
const ENTRY = `
export { createReplicaDatabase } from './client-sdk/replica/database.js';
export { indexedDbStorage } from './client-sdk/replica/indexeddb/storage.js';
export { writeStates } from './client-sdk/replication/replica-store.js';
export { createPoolClient } from './client-sdk/index.js';
export { addRxPlugin } from 'rxdb';
export { RxDBLeaderElectionPlugin } from 'rxdb/plugins/leader-election';
`;


export async function benchTabs(): Promise<void> {
  const bundle = (await build({ stdin: { contents: ENTRY, resolveDir: process.cwd(), loader: 'ts' }, bundle: true, format: 'iife', globalName: 'Bench', platform: 'browser', target: 'es2022', write: false, logLevel: 'silent' })).outputFiles[0]!.text;
  const db = await openStore({});
  const server = await startTestServer(db, { heartbeatMs: 1000, http: { rateLimitPerMinute: 0 } });
  const { token: admin } = await provisionOrganization(db, { name: 'Tab Pools' });
  const office = (await tokenFor(server, admin, 'OFFICE')).token;
  const folder = await mkdtemp(path.join(tmpdir(), 'bench-tabs-'));
  const context = await chromium.launchPersistentContext(folder, { ...LAUNCH, bypassCSP: true });
  const open = async (): Promise<Page> => {
    const page = await context.newPage();
    await page.goto(`${server.url}/healthz`);
    // tsx names the functions it compiles with a helper the page lacks (functions passed to evaluate).
    await page.addScriptTag({ content: `${bundle}\nwindow.__name = (f) => f;` });
    return page;
  };
  try {
    const [a, b] = [await open(), await open()];
    const parts = (process.env.BENCH_TABS ?? 'propagation,cost,locks,edits,handover').split(',');
    if (parts.includes('propagation')) await propagation(a, b);
    if (parts.includes('cost')) await pullCost(a, b);
    if (parts.includes('cost')) await postCost(a);
    if (parts.includes('locks')) await webLocks(a);
    if (parts.includes('edits')) await localEdits(context, open, office);
    if (parts.includes('handover')) await handover(open, office);
    if (parts.includes('handover')) await rxdbHandover(open);
  } finally {
    await context.close();
    await rm(folder, { recursive: true, force: true });
    await server.close();
    await db.close();
  }
}

type Mode = 'off' | 'on, storage silent' | 'on';

/** Which writes of tab A a live query of tab B sees, and after how many ms (- : not within 2 s). */
async function propagation(a: Page, b: Page): Promise<void> {
  console.log('\nTabs: a write in tab A, seen by a live query in tab B (ms; - = not within 2 s)');
  console.log('| multiInstance | RxDB insert (capture, keys, quota wrappers) | pulled state (storage instance) | pending change | local document |');
  console.log('|---|---|---|---|---|');
  for (const mode of ['off', 'on, storage silent', 'on'] as Mode[]) {
    const name = `propagation-${mode.replace(/\W+/g, '-')}`;
    await b.evaluate(openReplica, { name, mode });
    await a.evaluate(openReplica, { name, mode });
    await b.evaluate(() => {
      const w = window as unknown as Record<string, any>;
      w.seen = {};
      const note = (what: string) => (w.seen[what] ??= Date.now());
      w.replica.services.count().$.subscribe((n: number) => n >= 1 && note('insert'));
      w.replica.services.count().$.subscribe((n: number) => n >= 2 && note('pulled'));
      w.replica.pendingChanges.count().$.subscribe((n: number) => n >= 1 && note('pending'));
      w.replica.getLocal$('checkpoint-services').subscribe((d: unknown) => d && note('local'));
    });
    const wrote = await a.evaluate(async () => {
      const w = window as unknown as Record<string, any>;
      const now = () => new Date().toISOString();
      const at: Record<string, number> = {};
      await w.replica.services.insert({ id: 'by-rxdb', notes: 'typed', photos: [], createdAt: now(), updatedAt: now() });
      at.insert = Date.now();
      await w.Bench.writeStates(w.replica.services, [{ id: 'pulled', notes: 'from the server', photos: [], createdAt: now(), updatedAt: now(), _deleted: false }], new Map());
      at.pulled = Date.now();
      await w.replica.pendingChanges.insert({ key: 'services/by-rxdb', collectionName: 'services', docId: 'by-rxdb', base: null, changeId: 'c1', sent: [], updatedAt: now(), refused: null });
      at.pending = Date.now();
      await w.replica.upsertLocal('checkpoint-services', { seq: 7 });
      at.local = Date.now();
      return at;
    });
    await b.waitForTimeout(2000);
    const seen = (await b.evaluate(() => (window as unknown as Record<string, any>).seen)) as Record<string, number>;
    const cell = (what: string) => (seen[what] ? String(Math.max(0, seen[what]! - wrote[what]!)) : '-');
    console.log(`| ${mode} | ${cell('insert')} | ${cell('pulled')} | ${cell('pending')} | ${cell('local')} |`);
    await a.evaluate(closeReplica);
    await b.evaluate(closeReplica);
  }
}

/** 20 pages of 1,000 new visits, written as the puller writes them; with a second tab, until its live count has them all. */
async function pullCost(a: Page, b: Page): Promise<void> {
  const configs: [Mode, number][] = [['off', 1], ['on', 1], ['on', 2]];
  const runs = new Map<string, { wrote: number; busy: number; seenAfter: number }[]>(configs.map((c) => [c.join(), []]));
  // The writing page's main-thread time (Chromium's TaskDuration): what the writes cost the page
  // itself, far less swayed by a loaded machine than the time they take.
  const cdp = await a.context().newCDPSession(a);
  await cdp.send('Performance.enable');
  const busySeconds = async () => (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'TaskDuration')!.value;
  // Interleaved, so that the profile's growing IndexedDB weighs on every configuration alike.
  for (let run = 0; run < 5; run++) {
    for (const [mode, tabs] of configs) {
      const name = `cost-${mode}-${tabs}-${run}`;
      if (tabs === 2) {
        await b.evaluate(openReplica, { name, mode });
        await b.evaluate(() => {
          const w = window as unknown as Record<string, any>;
          w.allSeen = new Promise<number>((resolve) => w.replica.services.count().$.subscribe((n: number) => n >= 20_000 && resolve(Date.now())));
        });
      }
      await a.evaluate(openReplica, { name, mode });
      const busyBefore = await busySeconds();
      const { took, end } = await a.evaluate(writePages);
      const busy = (await busySeconds()) - busyBefore;
      const seenAt = tabs === 2 ? ((await b.evaluate(() => (window as unknown as Record<string, any>).allSeen)) as number) : end;
      runs.get([mode, tabs].join())!.push({ wrote: took, busy: busy * 1000, seenAfter: Math.max(0, seenAt - end) });
      await a.evaluate(closeReplica);
      if (tabs === 2) await b.evaluate(closeReplica);
    }
  }
  console.log("\nTabs: a first sync's writes, 20 pages of 1,000 visits (median of 5 runs, interleaved)");
  console.log('| multiInstance | tabs | writing tab, ms (runs) | its main thread busy, ms (runs) | other tab sees all after, ms |');
  console.log('|---|---|---|---|---|');
  const spread = (values: number[]) => `${median(values).toFixed(0)} (${Math.min(...values).toFixed(0)}-${Math.max(...values).toFixed(0)})`;
  for (const [mode, tabs] of configs) {
    const done = runs.get([mode, tabs].join())!;
    console.log(`| ${mode} | ${tabs} | ${spread(done.map((r) => r.wrote))} | ${spread(done.map((r) => r.busy))} | ${tabs === 2 ? median(done.map((r) => r.seenAfter)).toFixed(0) : ''} |`);
  }
  await cdp.detach();
}

/** What passing one page's changes on costs the writing tab alone: a BroadcastChannel's postMessage of an event bulk of 1,000 stored visits (median of 40). */
async function postCost(page: Page): Promise<void> {
  const ms = await page.evaluate(() => {
    const stamp = new Date().toISOString();
    const bulk = (p: number) => ({
      id: `bulk-${p}`,
      events: Array.from({ length: 1000 }, (_, i) => {
        const id = `v-${p}-${i}`;
        const documentData = { id, customerId: `c-${i % 300}`, newTechnicianId: `t-${i % 20}`, startTime: stamp, notes: 'Brushed, skimmed, emptied baskets; backwashed the filter.', chemicalReadings: { ph: 7.4, freeChlorine: 2.5, totalAlkalinity: 90 }, photos: [], createdAt: stamp, updatedAt: stamp, startKey: stamp, technicianKey: `t-${i % 20}`, _deleted: false, _attachments: {}, _meta: { lwt: Date.now() }, _rev: '1-abcdefghij' };
        return { operation: 'INSERT', documentId: id, documentData };
      }),
    });
    const channel = new BroadcastChannel('bench-post-cost');
    const samples: number[] = [];
    for (let p = 0; p < 40; p++) {
      const message = bulk(p);
      const start = performance.now();
      channel.postMessage(message);
      samples.push(performance.now() - start);
    }
    channel.close();
    return samples.sort((x, y) => x - y)[20]!;
  });
  console.log(`Tabs: passing on the changes of one page of 1,000 visits (postMessage of the event bulk, alone): ${ms.toFixed(1)} ms (median of 40)`);
}

/** Writes 20 pages of 1,000 new visits as the puller writes them (in the page). */
async function writePages(): Promise<{ took: number; end: number }> {
  const w = window as unknown as Record<string, any>;
  const stamp = new Date().toISOString();
  const start = performance.now();
  for (let page = 0; page < 20; page++) {
    const docs = Array.from({ length: 1000 }, (_, i) => ({
      id: `v-${page}-${i}`,
      customerId: `c-${i % 300}`,
      newTechnicianId: `t-${i % 20}`,
      startTime: new Date(Date.UTC(2026, 0, 1 + (i % 14), 8 + (i % 9))).toISOString(),
      notes: 'Brushed, skimmed, emptied baskets; backwashed the filter.',
      chemicalReadings: { ph: 7.4, freeChlorine: 2.5, totalAlkalinity: 90 },
      photos: [],
      createdAt: stamp,
      updatedAt: stamp,
      _deleted: false,
    }));
    await w.Bench.writeStates(w.replica.services, docs, new Map());
  }
  return { took: performance.now() - start, end: Date.now() };
}

/** A Web Lock requested and released, uncontended, 2,000 times. */
async function webLocks(page: Page): Promise<void> {
  const ms = await page.evaluate(async () => {
    const samples: number[] = [];
    for (let i = 0; i < 2000; i++) {
      const start = performance.now();
      await navigator.locks.request('bench-lock', async () => undefined);
      samples.push(performance.now() - start);
    }
    samples.sort((x, y) => x - y);
    return { p50: samples[1000]!, p95: samples[1900]! };
  });
  console.log(`\nTabs: a Web Lock taken and given back, uncontended: p50 ${ms.p50.toFixed(3)} ms, p95 ${ms.p95.toFixed(3)} ms (2,000 times)`);
}

/** A client's local edit of a visit (written to the replica and its pending changes), 200 times: one tab alone, then shared. */
async function localEdits(_context: BrowserContext, open: () => Promise<Page>, token: string): Promise<void> {
  const rows: string[] = [];
  for (const shared of [false, true]) {
    const page = await open();
    const ms = await page.evaluate(
      async ({ token, shared }) => {
        const client = await (window as unknown as Record<string, any>).Bench.createPoolClient({ baseUrl: location.origin, token, name: `edits-${shared}`, sharedAcrossTabs: shared });
        const visit = await client.recordVisit({ notes: 'first' });
        const samples: number[] = [];
        for (let i = 0; i < 200; i++) {
          const start = performance.now();
          await client.patch('services', visit.id, { notes: `edit ${i}` });
          samples.push(performance.now() - start);
        }
        await client.close();
        samples.sort((x, y) => x - y);
        return { p50: samples[100]!, p95: samples[190]! };
      },
      { token, shared },
    );
    rows.push(`| ${shared ? 'shared across tabs' : 'alone'} | ${ms.p50.toFixed(2)} | ${ms.p95.toFixed(2)} |`);
    await page.close();
  }
  console.log('\nTabs: a local edit (client.patch), 200 in a row, sync not started');
  console.log('| client | p50 ms | p95 ms |\n|---|---|---|');
  for (const row of rows) console.log(row);
}

/** The leading tab closed: ms until the other tab's client leads and its stream is up (median of 5). */
async function handover(open: () => Promise<Page>, token: string): Promise<void> {
  const samples: { leads: number; online: number }[] = [];
  for (let run = 0; run < 5; run++) {
    const name = `handover-${run}`;
    const start = (page: Page) =>
      page.evaluate(
        async ({ token, name }) => {
          const w = window as unknown as Record<string, any>;
          const client = await w.Bench.createPoolClient({ baseUrl: location.origin, token, name });
          w.client = client;
          client.sync.start();
          await client.sync.awaitInSync();
        },
        { token, name },
      );
    const leader = await open();
    await start(leader);
    const follower = await open();
    await start(follower);
    await follower.evaluate(() => {
      const w = window as unknown as Record<string, any>;
      w.watch = { leads: 0, online: 0 };
      w.client.sync.leader$.subscribe((leads: boolean) => leads && (w.watch.leads ||= Date.now()));
      w.client.sync.status$.subscribe((s: { online: boolean }) => w.watch.leads && s.online && (w.watch.online ||= Date.now()));
    });
    const closed = Date.now();
    await leader.close();
    await follower.waitForFunction(() => (window as unknown as Record<string, any>).watch.online > 0, undefined, { timeout: 30_000 });
    const watch = (await follower.evaluate(() => (window as unknown as Record<string, any>).watch)) as { leads: number; online: number };
    samples.push({ leads: watch.leads - closed, online: watch.online - closed });
    await follower.evaluate(() => (window as unknown as Record<string, any>).client.close());
    await follower.close();
  }
  console.log(`\nTabs: the leading tab closed: the other leads after ${median(samples.map((s) => s.leads))} ms, its stream up after ${median(samples.map((s) => s.online))} ms (median of 5)`);
}

/** The same with RxDB's leader-election plugin on the replica (multiInstance on): ms until the other tab's `waitForLeadership()` resolves (median of 5). */
async function rxdbHandover(open: () => Promise<Page>): Promise<void> {
  const samples: number[] = [];
  for (let run = 0; run < 5; run++) {
    const name = `rxdb-handover-${run}`;
    const elect = (page: Page) =>
      page.evaluate(async (name) => {
        const w = window as unknown as Record<string, any>;
        w.Bench.addRxPlugin(w.Bench.RxDBLeaderElectionPlugin);
        const db = await w.Bench.createReplicaDatabase(name, w.Bench.indexedDbStorage(), ['services'], { multiInstance: true });
        w.replica = db;
        w.ledAt = 0;
        void db.waitForLeadership().then(() => (w.ledAt = Date.now()));
      }, name);
    const leader = await open();
    await elect(leader);
    await leader.waitForFunction(() => (window as unknown as Record<string, any>).ledAt > 0);
    const follower = await open();
    await elect(follower);
    await follower.waitForTimeout(200);
    const closed = Date.now();
    await leader.close();
    await follower.waitForFunction(() => (window as unknown as Record<string, any>).ledAt > 0, undefined, { timeout: 30_000 });
    samples.push(((await follower.evaluate(() => (window as unknown as Record<string, any>).ledAt)) as number) - closed);
    await follower.evaluate(closeReplica);
    await follower.close();
  }
  console.log(`Tabs: the same with RxDB's leader-election plugin: the other tab leads after ${median(samples)} ms (median of 5)`);
}

function openReplica({ name, mode }: { name: string; mode: Mode }): Promise<void> {
  const w = window as unknown as Record<string, any>;
  const storage = w.Bench.indexedDbStorage();
  // RxDB's multiInstance on, but the storage not told: as the SDK's storage was before it passed changes on.
  const silent = { ...storage, createStorageInstance: (params: Record<string, unknown>) => storage.createStorageInstance({ ...params, multiInstance: false }) };
  return w.Bench.createReplicaDatabase(name, mode === 'on, storage silent' ? silent : storage, ['services'], {
    multiInstance: mode !== 'off',
    capture: () => (_name: string, _rows: unknown[], _context: string, write: () => Promise<unknown>) => write(),
  }).then((db: unknown) => {
    w.replica = db;
  });
}

function closeReplica(): Promise<void> {
  return (window as unknown as Record<string, any>).replica.close();
}
