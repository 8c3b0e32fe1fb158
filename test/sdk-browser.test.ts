import fs from 'node:fs';
import { build } from 'esbuild';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sampleFiles } from './fixtures/files.js';
import { caller, ok, tokenFor } from './support/api.js';
import { openTestStore, type TestStore } from './support/engines.js';
import { newOrganization, startTestServer, type TestServer } from './support/server.js';
import { startFaultProxy, type FaultProxy } from './support/fault-proxy.js';
import { serverDocument } from './support/sync.js';

/**
 * The client SDK in a real browser (Debian's Chromium, driven by playwright-core): the browser
 * bundle, IndexedDB as the default replica storage, offline work that survives a page reload, and
 * the live stream. The page is opened on the API's own origin, as the office web app would be
 * served, and the bundle is injected as a script.
 */
const CHROMIUM = '/usr/bin/chromium';
// Skipped where Chromium is not installed, unless REQUIRE_CHROMIUM is set (.ci/run sets it and
// installs Chromium), so CI cannot pass without running it.
const runs = fs.existsSync(CHROMIUM) || Boolean(process.env.REQUIRE_CHROMIUM);

declare global {
  interface Window {
    PoolSDK: typeof import('../client-sdk/index.js');
  }
}

describe.runIf(runs)('client SDK in a browser', () => {
  let store: TestStore;
  let server: TestServer;
  /** The page's origin: losing signal drops every connection, the live stream's too. */
  let proxy: FaultProxy;
  let browser: Browser;
  let context: BrowserContext;
  let bundle: string;
  /** RxDB's Dexie storage, which the SDK kept the replica in before its own IndexedDB storage. */
  let dexieBundle: string;
  let tech: string;
  let office: string;
  let customerId: string;
  let techUser: string;
  let gql: ReturnType<typeof caller>;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    store = await openTestStore('pglite');
    // A short heartbeat: the SDK takes a stream silent for 2.5 heartbeats for dead.
    server = await startTestServer(store.db, { heartbeatMs: 300 });
    proxy = await startFaultProxy(server.url);
    office = (await newOrganization(store.db, 'Browser Pools')).token;
    gql = caller(server, office);
    const technician = await tokenFor(server, office, 'TECHNICIAN');
    tech = technician.token;
    techUser = technician.apiToken.userId;
    // The technician's customer: their phone holds it.
    customerId = ok(await gql(`mutation($t: ID) { createCustomer(input: {firstName: "Bea", lastName: "Rowser", service: {technicianId: $t}}) { id } }`, { t: techUser })).createCustomer.id;
    const built = await build({
      entryPoints: ['client-sdk/index.ts'],
      bundle: true,
      format: 'iife',
      globalName: 'PoolSDK',
      platform: 'browser',
      target: 'es2022',
      write: false,
      logLevel: 'silent',
    });
    bundle = built.outputFiles[0]!.text;
    const dexie = await build({
      stdin: { contents: "export { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';", resolveDir: process.cwd() },
      bundle: true,
      format: 'iife',
      globalName: 'OldStorage',
      platform: 'browser',
      target: 'es2022',
      write: false,
      logLevel: 'silent',
    });
    dexieBundle = dexie.outputFiles[0]!.text;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
    // The page injects the SDK as an inline script, which the server's Content-Security-Policy
    // refuses, as it should for any page of ours: the browser is told to let this test's script
    // run. The apps themselves run under the policy (test/security-headers.test.ts).
    context = await browser.newContext({ bypassCSP: true });
  }, 60_000);
  afterEach(() => {
    // Nothing may fail inside the page unseen (an unhandled error in the SDK is a bug).
    expect(pageErrors).toEqual([]);
  });
  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    await server?.close();
    await store?.drop();
  });

  async function openApp(): Promise<Page> {
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    await page.goto(`${proxy.url}/healthz`);
    await page.addScriptTag({ content: bundle });
    return page;
  }

  it('records a visit on IndexedDB while offline, keeps it across a page reload, and syncs it when back online', async () => {
    const photo = sampleFiles.jpeg(4096);
    const page = await openApp();
    // Morning: the tablet syncs its customers while it has signal.
    await page.evaluate(async (token) => {
      const client = await window.PoolSDK.createPoolClient({ baseUrl: location.origin, token, name: 'field-tablet', retryMs: 200 });
      client.sync.start();
      await client.sync.awaitInSync();
      (window as unknown as { tablet: typeof client }).tablet = client;
    }, tech);

    proxy.setMode('refuse');
    let recorded: { id: string; online: boolean; pending: number };
    try {
      recorded = await page.evaluate(async ({ customerId, jpeg }) => {
        const client = (window as unknown as { tablet: Awaited<ReturnType<typeof window.PoolSDK.createPoolClient>> }).tablet;
        const visit = await client.recordVisit({ customerId, notes: 'Recorded in the browser, offline', readings: { ph: 7.3, freeChlorine: 3 } });
        // A photo as a browser has it: a Blob (from a file input or the camera).
        await client.addVisitPhoto(visit.id, new Blob([new Uint8Array(jpeg)], { type: 'image/jpeg' }), 'Skimmer, before');
        // The push fails and the stream falls silent; the app is told through status$, not by an
        // exception.
        const status = await new Promise<{ online: boolean; pendingPushes: number }>((resolve) => {
          client.sync.status$.subscribe((s) => {
            if (s.lastError && !s.online) resolve(s);
          });
        });
        await client.close();
        return { id: visit.id, online: status.online, pending: status.pendingPushes };
      }, { customerId, jpeg: [...photo] });
    } finally {
      proxy.setMode('pass');
    }
    expect(recorded.online).toBe(false);
    expect(recorded.pending).toBeGreaterThan(0);
    expect(await serverDocument(server, office, 'services', recorded.id)).toBeUndefined();

    // The app restarts (a reload) with signal again: the replica in IndexedDB still has the visit,
    // and it reaches the server.
    await page.reload();
    await page.addScriptTag({ content: bundle });
    const kept = await page.evaluate(
      async ({ token, id }) => {
        const client = await window.PoolSDK.createPoolClient({ baseUrl: location.origin, token, name: 'field-tablet', retryMs: 200 });
        const local = await client.db.collections.services!.findOne(id).exec();
        client.sync.start();
        await client.sync.awaitInSync();
        await client.close();
        return local?.toJSON() as { notes: string } | undefined;
      },
      { token: tech, id: recorded.id },
    );
    expect(kept?.notes).toBe('Recorded in the browser, offline');
    const onServer = await serverDocument(server, office, 'services', recorded.id);
    expect(onServer).toMatchObject({ notes: 'Recorded in the browser, offline', chemicalReadings: { ph: 7.3, freeChlorine: 3 } });
    // The photo waited in the IndexedDB queue through the reload and arrived once, byte for byte.
    const { infiniteServices } = ok(
      await gql(`query($id: ID!) { infiniteServices(selector: {filters: {id: {eq: $id}}}, first: 1) { edges { node { photos { caption url size } } } } }`, { id: recorded.id }),
    );
    const service = infiniteServices.edges[0].node;
    expect(service.photos).toHaveLength(1);
    expect(service.photos[0]).toMatchObject({ caption: 'Skimmer, before', size: photo.length });
    expect(Buffer.from(await (await fetch(service.photos[0].url)).arrayBuffer()).equals(photo)).toBe(true);
    await page.close();
  }, 60_000);

  it('writes made the RxDB way on IndexedDB, offline and across a reload, sync like the actions', async () => {
    const page = await openApp();
    const ids = await page.evaluate(async ({ token, customerId }) => {
      const client = await window.PoolSDK.createPoolClient({ baseUrl: location.origin, token, name: 'rxdb-way-tablet', retryMs: 200 });
      client.sync.start();
      await client.sync.awaitInSync();
      await client.sync.stop(); // the app is offline from here, and never tries
      const services = client.db.collections.services!;
      const inserted = { id: crypto.randomUUID(), customerId, notes: 'inserted the RxDB way', photos: [] };
      await services.insert(inserted);
      const customer = await client.db.collections.customers!.findOne(customerId).exec();
      await customer!.incrementalPatch({ notes: 'gate code 4821, patched the RxDB way' });
      const refused = await services.insert({ ...inserted, id: crypto.randomUUID(), notes: 42 as never }).then(() => null, (e: Error) => e.message);
      await client.close();
      return { visit: inserted.id, refused };
    }, { token: tech, customerId });
    expect(ids.refused).toMatch(/^insert into services: notes/);
    expect(await serverDocument(server, office, 'services', ids.visit)).toBeUndefined();

    await page.reload();
    await page.addScriptTag({ content: bundle });
    const pending = await page.evaluate(async (token) => {
      const client = await window.PoolSDK.createPoolClient({ baseUrl: location.origin, token, name: 'rxdb-way-tablet', retryMs: 200 });
      const before = await new Promise<number>((resolve) => client.sync.status$.subscribe((s) => s.pendingPushes && resolve(s.pendingPushes)));
      client.sync.start();
      await client.sync.awaitInSync();
      await client.close();
      return before;
    }, tech);
    expect(pending).toBe(2);
    expect(await serverDocument(server, office, 'services', ids.visit)).toMatchObject({ notes: 'inserted the RxDB way', customerId });
    expect(await serverDocument(server, office, 'customers', customerId)).toMatchObject({ notes: 'gate code 4821, patched the RxDB way' });
    await page.close();
  }, 60_000);

  it('a replica an earlier SDK kept in Dexie brings its unsynced work to the new storage: shown at once, synced once, the old databases gone', async () => {
    const page = await openApp();
    await page.addScriptTag({ content: dexieBundle });
    const before = await page.evaluate(
      async ({ token, customerId, jpeg }) => {
        const { getRxStorageDexie } = (window as unknown as { OldStorage: { getRxStorageDexie: () => never } }).OldStorage;
        const client = await window.PoolSDK.createPoolClient({ baseUrl: location.origin, token, name: 'updated-tablet', retryMs: 200, storage: getRxStorageDexie() });
        client.sync.start();
        await client.sync.awaitInSync();
        await client.sync.stop(); // offline from here: the visit waits in the outbox, its photo in the queue
        const visit = await client.recordVisit({ customerId, notes: 'Recorded before the update, offline' });
        await client.addVisitPhoto(visit.id, new Blob([new Uint8Array(jpeg)], { type: 'image/jpeg' }), 'Before the update');
        await client.close();
        const dexie = (await indexedDB.databases()).map((d) => d.name!).filter((n) => n.startsWith('rxdb-dexie-updated-tablet--'));
        return { id: visit.id, dexie };
      },
      { token: tech, customerId, jpeg: [...sampleFiles.jpeg(2048)] },
    );
    expect(before.dexie).toEqual(expect.arrayContaining([expect.stringMatching(/--pendingChanges$/), expect.stringMatching(/--services$/)]));
    expect(await serverDocument(server, office, 'services', before.id)).toBeUndefined();

    // The app updated to this SDK opens the same replica with its default storage.
    await page.reload();
    await page.addScriptTag({ content: bundle });
    const after = await page.evaluate(
      async ({ token, id, customerId }) => {
        const client = await window.PoolSDK.createPoolClient({ baseUrl: location.origin, token, name: 'updated-tablet', retryMs: 200 });
        const shown = (await client.db.collections.services!.findOne(id).exec())?.get('notes') as string | undefined;
        const pending = await new Promise<number>((resolve) => client.sync.status$.subscribe((s) => resolve(s.pendingPushes)));
        client.sync.start();
        await client.sync.awaitInSync();
        const customer = (await client.db.collections.customers!.findOne(customerId).exec())?.get('lastName') as string | undefined;
        await client.close();
        const dexie = (await indexedDB.databases()).map((d) => d.name!).filter((n) => n.startsWith('rxdb-dexie-updated-tablet--'));
        return { shown, pending, customer, dexie };
      },
      { token: tech, id: before.id, customerId },
    );
    expect(after).toEqual({ shown: 'Recorded before the update, offline', pending: 1, customer: 'Rowser', dexie: [] });
    expect(await serverDocument(server, office, 'services', before.id)).toMatchObject({ notes: 'Recorded before the update, offline', customerId });
    // The photo waiting in the old queue is uploaded once, after its visit.
    const photos = async () => ok(await gql(`query($id: ID!) { infiniteServices(selector: {filters: {id: {eq: $id}}}, first: 1) { edges { node { photos { caption size } } } } }`, { id: before.id })).infiniteServices.edges[0].node.photos;
    await expect.poll(photos, { timeout: 10_000 }).toEqual([{ caption: 'Before the update', size: 2048 }]);
    await page.close();
  }, 60_000);

  it('the office app sees a change made elsewhere arrive through the live stream', async () => {
    const page = await openApp();
    await page.evaluate(async (token) => {
      const client = await window.PoolSDK.createPoolClient({ baseUrl: location.origin, token, name: 'office-app', collections: ['customers'] });
      client.sync.start();
      await client.sync.awaitInSync();
      (window as unknown as { officeClient: typeof client }).officeClient = client;
    }, office);
    const created = ok(await gql(`mutation { createCustomer(input: {firstName: "Live", lastName: "Arrival"}) { id } }`)).createCustomer.id as string;
    const seen = await page.evaluate(async (id) => {
      const client = (window as unknown as { officeClient: Awaited<ReturnType<typeof window.PoolSDK.createPoolClient>> }).officeClient;
      const doc = await new Promise<{ lastName: string }>((resolve) => {
        client.db.collections.customers!.findOne(id).$.subscribe((d) => {
          if (d) resolve(d.toJSON() as { lastName: string });
        });
      });
      await client.close();
      return doc;
    }, created);
    expect(seen.lastName).toBe('Arrival');
    await page.close();
  }, 60_000);
});
