import fs from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PoolClient } from '../client-sdk/index.js';
import { caller, ok } from './support/api.js';
import { openTestStore, type TestStore } from './support/engines.js';
import { startPushGate, type PushGate } from './support/push-gate.js';
import { newOrganization, startTestServer, type TestServer } from './support/server.js';
import { serverDocument } from './support/sync.js';

/**
 * Two tabs of one browser profile on one replica (client-sdk/replication/README.md), in Debian's
 * Chromium on a profile on disk, each page running the SDK's browser bundle as an office page
 * does, against a real server behind a proxy that can hold pushes at the server's door. What a
 * person with two tabs open notices: an edit in either tab shows in both; a change from elsewhere
 * shows in both; the profile holds one live stream; nothing typed is lost or written twice when
 * the tab doing the syncing is closed in the middle of a push.
 */
const CHROMIUM = '/usr/bin/chromium';
const runs = fs.existsSync(CHROMIUM) || Boolean(process.env.REQUIRE_CHROMIUM);

/** What each page keeps: its client, the notes of every visit it shows and when each first showed, and whether it leads. */
interface Tab {
  client: PoolClient;
  notes: Record<string, { notes: string; at: number }[]>;
  leads: boolean;
}
declare global {
  interface Window {
    PoolSDK: typeof import('../client-sdk/index.js');
    tab: Tab;
  }
}

describe.runIf(runs)('tabs of one browser profile sharing a replica', () => {
  let store: TestStore;
  let server: TestServer;
  let gate: PushGate;
  let context: BrowserContext;
  let profile: string;
  let bundle: string;
  let admin: string;
  let orgId: string;
  let visits: string[];
  let gql: ReturnType<typeof caller>;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    store = await openTestStore('pglite');
    server = await startTestServer(store.db, { heartbeatMs: 300, http: { rateLimitPerMinute: 0 } });
    gate = await startPushGate(server.url);
    const org = await newOrganization(store.db, 'Two Tab Pools');
    admin = org.token;
    orgId = org.org.id;
    gql = caller(server, admin);
    const customerId = ok(await gql(`mutation { createCustomer(input: {firstName: "Tab", lastName: "Twice"}) { id } }`)).createCustomer.id;
    const today = new Date().toISOString();
    visits = [];
    for (const notes of ['first visit', 'second visit']) {
      visits.push(ok(await gql(`mutation($c: ID, $s: DateTime, $n: String) { createService(input: {customerId: $c, startTime: $s, notes: $n}) { id } }`, { c: customerId, s: today, n: notes })).createService.id);
    }
    const built = await build({ entryPoints: ['client-sdk/index.ts'], bundle: true, format: 'iife', globalName: 'PoolSDK', platform: 'browser', target: 'es2022', write: false, logLevel: 'silent' });
    bundle = built.outputFiles[0]!.text;
    // A profile on disk, as an office's browser has: both pages share its IndexedDB, locks and channels.
    profile = await mkdtemp(path.join(tmpdir(), 'tabs-profile-'));
    // The page injects the SDK as an inline script, which the server's Content-Security-Policy refuses (as it should).
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'], bypassCSP: true });
  }, 60_000);
  afterEach(() => {
    // Nothing may fail inside a page unseen.
    expect(pageErrors).toEqual([]);
  });
  afterAll(async () => {
    await context?.close();
    if (profile) await rm(profile, { recursive: true, force: true });
    await gate?.close();
    await server?.close();
    await store?.drop();
  });

  /** A tab of the profile with the SDK's client on replica `name`, started, showing every visit's notes as they change. */
  async function openTab(name: string): Promise<Page> {
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    await page.goto(`${gate.url}/healthz`);
    await page.addScriptTag({ content: bundle });
    await page.evaluate(
      async ({ token, name }) => {
        const client = await window.PoolSDK.createPoolClient({ baseUrl: location.origin, token, name, retryMs: 200 });
        window.tab = { client, notes: {}, leads: false };
        client.sync.leader$.subscribe((leads) => (window.tab.leads = leads));
        client.db.collections.services!.find().$.subscribe((docs) => {
          for (const doc of docs) {
            const shown = (window.tab.notes[doc.id] ??= []);
            if (shown.at(-1)?.notes !== doc.get('notes')) shown.push({ notes: doc.get('notes') as string, at: Date.now() });
          }
        });
        client.sync.start();
        await client.sync.awaitInSync();
      },
      { token: admin, name },
    );
    return page;
  }

  /** When the tab first showed `notes` on the visit (ms since the epoch), or null. */
  const shownAt = (page: Page, id: string, notes: string) =>
    page.evaluate(({ id, notes }) => window.tab.notes[id]?.find((s) => s.notes === notes)?.at ?? null, { id, notes });
  const waitShown = (page: Page, id: string, notes: string, timeout = 10_000) =>
    page.waitForFunction(({ id, notes }) => window.tab.notes[id]?.some((s) => s.notes === notes), { id, notes }, { timeout });
  const leads = (page: Page) => page.evaluate(() => window.tab.leads);
  const edit = (page: Page, id: string, notes: string) =>
    page.evaluate(async ({ id, notes }) => {
      await window.tab.client.patch('services', id, { notes });
      return Date.now();
    }, { id, notes });
  const status = (page: Page) => page.evaluate(() => new Promise<import('../client-sdk/index.js').SyncStatus>((resolve) => window.tab.client.sync.status$.subscribe(resolve).unsubscribe()));

  /** Live streams open on the server, as its metrics count them. */
  async function openStreams(): Promise<number> {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    return Number(/^pool_live_subscribers (\d+)/m.exec(text)?.[1]);
  }
  const receipts = async (changeIds: string[]) =>
    (await store.db.query<{ change_id: string }>('select change_id from sync_receipts where org_id = $1 and change_id = any($2)', [orgId, changeIds])).rows.map((r) => r.change_id);
  const conflictsOn = async (id: string) => (await store.db.query('select 1 from sync_conflicts where org_id = $1 and document_id = $2', [orgId, id])).rows.length;
  /** Every push of the visit the server's door saw (from the `since`th push on), with the change id each carried. */
  const pushesOf = (id: string, since = 0) => gate.pushes.slice(since).flatMap((p) => p.rows.filter((r) => r.newDocumentState.id === id).map((r) => ({ changeId: r.changeId!, notes: r.newDocumentState.notes, abandoned: p.abandoned })));

  it('one tab syncs for the profile; an edit in either tab, and a change from elsewhere, show in both within a second; each edit reaches the server once', async () => {
    const [v1, v2] = visits as [string, string];
    const a = await openTab('office-desk');
    const b = await openTab('office-desk');
    expect([await leads(a), await leads(b)]).toEqual([true, false]);
    await expect.poll(openStreams).toBe(1);

    // An edit in each tab at once.
    const [editedInA, editedInB] = await Promise.all([edit(a, v1, 'Edited in tab A'), edit(b, v2, 'Edited in tab B')]);
    for (const page of [a, b]) {
      await waitShown(page, v1, 'Edited in tab A');
      await waitShown(page, v2, 'Edited in tab B');
      expect((await shownAt(page, v1, 'Edited in tab A'))! - editedInA).toBeLessThan(1000);
      expect((await shownAt(page, v2, 'Edited in tab B'))! - editedInB).toBeLessThan(1000);
    }
    await expect.poll(async () => [(await serverDocument(server, admin, 'services', v1))?.notes, (await serverDocument(server, admin, 'services', v2))?.notes]).toEqual(['Edited in tab A', 'Edited in tab B']);
    // The follower tab tells the truth: nothing waits, the leader's stream is up.
    await expect.poll(async () => ({ ...(await status(b)) })).toMatchObject({ pendingPushes: 0, state: 'online', firstSyncDone: true });

    // The office changes a visit elsewhere: the leading tab pulls it, the other shows it as soon.
    ok(await gql('mutation($id: ID!) { updateService(id: $id, input: {notes: "Changed by the office"}) { id } }', { id: v1 }));
    await waitShown(a, v1, 'Changed by the office');
    await waitShown(b, v1, 'Changed by the office');
    expect((await shownAt(b, v1, 'Changed by the office'))! - (await shownAt(a, v1, 'Changed by the office'))!).toBeLessThan(1000);

    // A tab that saves and is closed at once: the tab left pushes its change.
    const c = await openTab('office-desk');
    expect(await leads(c)).toBe(false);
    await edit(c, v2, 'Saved in a tab closed at once');
    await c.close();
    await expect.poll(async () => (await serverDocument(server, admin, 'services', v2))?.notes, { timeout: 10_000 }).toBe('Saved in a tab closed at once');
    await waitShown(a, v2, 'Saved in a tab closed at once');
    await waitShown(b, v2, 'Saved in a tab closed at once');

    // Each edit was pushed once, by the one tab that syncs, and the server kept a receipt of it; nothing clashed.
    for (const [id, notes] of [[v1, 'Edited in tab A'], [v2, 'Edited in tab B'], [v2, 'Saved in a tab closed at once']] as const) {
      const pushed = pushesOf(id).filter((p) => p.notes === notes);
      expect(pushed).toHaveLength(1);
      expect(await receipts([pushed[0]!.changeId])).toEqual([pushed[0]!.changeId]);
    }
    expect([await conflictsOn(v1), await conflictsOn(v2)]).toEqual([0, 0]);
    expect(await openStreams()).toBe(1);
    await a.evaluate(() => window.tab.client.close());
    await b.evaluate(() => window.tab.client.close());
    await Promise.all([a.close(), b.close()]);
    await expect.poll(openStreams, { timeout: 10_000 }).toBe(0);
  }, 90_000);

  it('the syncing tab closed in the middle of a push: the other tab finishes it, and the server writes it once', async () => {
    const [v1] = visits as [string];
    const a = await openTab('office-handover');
    const b = await openTab('office-handover');
    expect([await leads(a), await leads(b)]).toEqual([true, false]);

    // The server is slow to take pushes: the edit made in tab B is on its way, pushed by tab A.
    const since = gate.pushes.length;
    gate.hold();
    await edit(b, v1, 'Typed in tab B while tab A pushed');
    await expect.poll(() => pushesOf(v1, since).length).toBe(1);
    expect(await status(b)).toMatchObject({ pendingPushes: 1, state: 'online' });

    await a.close();
    await b.waitForFunction(() => window.tab.leads);
    // Tab B pushes the same change again, under the same change id: a repeat the server can tell.
    await expect.poll(() => pushesOf(v1, since).length, { timeout: 10_000 }).toBe(2);
    const [first, again] = pushesOf(v1, since);
    expect(first).toMatchObject({ notes: 'Typed in tab B while tab A pushed', abandoned: true });
    expect(again!.changeId).toBe(first!.changeId);
    await expect.poll(openStreams).toBe(1);

    // Tab A's push had reached the server's side before A closed: it is applied first.
    await gate.releaseOne();
    const row = async () => (await store.db.query<{ notes: string; _seq: string; updated_at: string }>('select notes, _seq::text, updated_at::text from services where org_id = $1 and id = $2', [orgId, v1])).rows[0]!;
    const written = await row();
    expect(written.notes).toBe('Typed in tab B while tab A pushed');
    // Tab B's repeat is answered, and changes nothing.
    await gate.open();
    await b.evaluate(() => window.tab.client.sync.awaitInSync({ timeoutMs: 20_000 }));
    expect(await row()).toEqual(written);
    expect(await receipts([first!.changeId])).toEqual([first!.changeId]);
    expect(await conflictsOn(v1)).toBe(0);
    expect(await status(b)).toMatchObject({ pendingPushes: 0, state: 'online' });
    await b.evaluate(() => window.tab.client.close());
    await b.close();
  }, 90_000);
});
