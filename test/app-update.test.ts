import fs from 'node:fs';
import { cp, mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTechnicianApp } from '../server/build-technician-app.js';
import { provisionOrganization } from '../server/operations/organization.js';
import { caller, ok, tokenFor } from './support/api.js';
import { openTestStore, type TestStore } from './support/engines.js';
import { signInCodeFor } from './support/phones.js';
import { startTestServer, type TestServer } from './support/server.js';
import { PROTOCOL_VERSION_HEADER, SYNC_PROTOCOL_VERSION } from '../shared/index.js';

/**
 * A server upgrade with apps in the field, in Debian's Chromium. The technician app is installed
 * (its service worker controls the page) in a build that speaks sync protocol version 0, as apps
 * from before versions do (built here with the SDK's build-time constant). The phone loses the
 * server and a visit is recorded; the server comes back upgraded, at the same address, with the
 * new build and a floor of version 1. The old app is refused ("Update to sync"), its visit kept;
 * the new build's worker installs and waits; the app says a new version is ready and does not
 * reload while the visit's form holds unsaved typing; once saved it takes the update, and the
 * updated app delivers the visit, once. The office app, open in a tab meanwhile, notices the
 * server's new build and takes it on the next navigation.
 */
const CHROMIUM = '/usr/bin/chromium';
const runs = fs.existsSync(CHROMIUM) || Boolean(process.env.REQUIRE_CHROMIUM);
const LAUNCH = { executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] };
const SHOTS = path.join('test-output', 'screenshots');
const PHONE = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 };

describe.runIf(runs)('an app update across a server upgrade', { timeout: 120_000 }, () => {
  let store: TestStore;
  let server: TestServer;
  let port: number;
  let browser: Browser;
  let phone: BrowserContext;
  let desk: BrowserContext;
  let folder: string;
  let admin: string;
  let technicianId: string;
  let visitId: string;
  const builds = { oldTech: '', newTech: '', newOffice: '' };
  const pageErrors: string[] = [];

  beforeAll(async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'app-update-'));
    builds.oldTech = path.join(folder, 'tech-old');
    builds.newTech = path.join(folder, 'tech-new');
    builds.newOffice = path.join(folder, 'office-new');
    await buildTechnicianApp({ outDir: builds.oldTech, define: { POOL_SYNC_PROTOCOL_BUILT_AS: '0' } });
    await buildTechnicianApp({ outDir: builds.newTech });
    await renamedOfficeBuild(builds.newOffice);

    store = await openTestStore('pglite');
    server = await startTestServer(store.db, { heartbeatMs: 300, http: { rateLimitPerMinute: 0 }, bundles: { technician: builds.oldTech } });
    port = Number(new URL(server.url).port);
    const org = await provisionOrganization(store.db, { name: 'Upgrade Pools' });
    admin = org.token;
    const tech = await tokenFor(server, admin, 'TECHNICIAN');
    technicianId = tech.apiToken.userId;
    const gql = caller(server, admin);
    const customerId = ok(await gql('mutation { createCustomer(input: {firstName: "Dana", lastName: "Shore"}) { id } }')).createCustomer.id;
    const later = new Date();
    later.setHours(23, 30, 0, 0);
    visitId = ok(await gql('mutation($c: ID, $t: ID, $at: DateTime) { createService(input: {customerId: $c, newTechnicianId: $t, startTime: $at}) { id } }', { c: customerId, t: tech.apiToken.userId, at: later.toISOString() })).createService.id;
    browser = await chromium.launch(LAUNCH);
    phone = await browser.newContext(PHONE);
    desk = await browser.newContext({ viewport: { width: 1300, height: 900 } });
    for (const context of [phone, desk]) context.setDefaultTimeout(30_000);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await store?.drop();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  /** The visit as the office's current app pulls it (the upgraded server serves no older one). */
  async function visitOnServer(): Promise<{ notes: string | null }> {
    const res = await fetch(`${server.url}/sync/services/pull?checkpoint=0&limit=5000`, { headers: { authorization: `Bearer ${admin}`, [PROTOCOL_VERSION_HEADER]: String(SYNC_PROTOCOL_VERSION) } });
    const { documents } = (await res.json()) as { documents: { id: string; notes: string | null }[] };
    return documents.filter((d) => d.id === visitId).at(-1)!;
  }
  /** The script a page runs: which build it is. */
  const scriptOf = (page: Page) => page.evaluate(() => document.querySelector<HTMLScriptElement>('script[type="module"]')?.src.split('/').pop() ?? null);
  const scriptIn = async (dir: string) => (await readdir(dir)).find((f) => /^main-\w+\.js$/.test(f))!;

  it('the old app and the office app run against the server as it was; the phone records a visit while the server is away', async () => {
    const office = await desk.newPage();
    office.on('pageerror', (error) => pageErrors.push(String(error)));
    await office.goto(`${server.url}/app`);
    await office.getByLabel('API token', { exact: true }).fill(admin);
    await office.getByRole('button', { name: 'Sign in' }).click();
    await office.getByRole('heading', { name: 'Dispatch board' }).waitFor();

    const page = await phone.newPage();
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    await page.goto((await signInCodeFor(server, admin, technicianId)).link);
    await page.getByRole('heading', { name: /^Today, / }).waitFor();
    await expect.poll(() => page.getByTestId('connection').textContent(), { timeout: 20_000 }).toBe('Online');
    await expect.poll(() => page.evaluate(() => Boolean(navigator.serviceWorker.controller)), { timeout: 20_000 }).toBe(true);
    expect(await scriptOf(page)).toBe(await scriptIn(builds.oldTech));

    // The server goes away (for its upgrade): the phone is offline, and the technician works on.
    await server.close();
    await expect.poll(() => page.getByTestId('connection').textContent(), { timeout: 20_000 }).toBe('Offline');
    await page.goto(`${server.url}/tech/#/visit/${encodeURIComponent(visitId)}`);
    const start = page.getByRole('button', { name: 'Start visit' });
    await page.getByRole('button', { name: 'Complete visit' }).waitFor();
    if (await start.isVisible()) await start.click();
    await page.getByLabel('Notes').fill('Skimmer lid cracked');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved on this phone.').waitFor();
    await expect.poll(() => page.getByTestId('waiting').textContent()).toMatch(/waiting/);
    // More typed, not saved yet: no update may take this away.
    await page.getByLabel('Notes').fill('Skimmer lid cracked; replace next visit');
  });

  it('upgraded, the server refuses the old app, which says "Update to sync", shows the new version ready, and waits for the form', async () => {
    server = await startTestServer(store.db, { port, heartbeatMs: 300, http: { rateLimitPerMinute: 0 }, minProtocolVersion: 1, bundles: { technician: builds.newTech, office: builds.newOffice } });
    const page = phone.pages()[0]!;
    await page.getByTestId('update-ready').waitFor({ timeout: 30_000 });
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.evaluate(() => scrollTo(0, 0));
    // The new version found (the service worker's check) and the old app refused (its next sync
    // attempt's 426) come independently, in either order.
    await expect.poll(() => page.getByTestId('connection').textContent(), { timeout: 20_000 }).toBe('Update to sync');
    await page.screenshot({ path: path.join(SHOTS, 'tech-update-ready.png') });
    // Nothing of the visit reached the server: the old app was refused before anything was written.
    expect((await visitOnServer()).notes ?? null).toBeNull();
    await page.waitForTimeout(1500);
    expect(await scriptOf(page), 'no reload while the form holds unsaved typing').toBe(await scriptIn(builds.oldTech));
    expect(await page.getByLabel('Notes').inputValue()).toBe('Skimmer lid cracked; replace next visit');
  });

  it('once the form is saved, the app takes the new version, and the updated app delivers the visit once', async () => {
    const page = phone.pages()[0]!;
    const reloaded = page.waitForEvent('load');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await reloaded;
    await expect.poll(() => scriptOf(page), { timeout: 30_000 }).toBe(await scriptIn(builds.newTech));
    await expect.poll(() => page.getByTestId('connection').textContent(), { timeout: 30_000 }).toBe('Online');
    await expect.poll(async () => (await visitOnServer()).notes, { timeout: 20_000 }).toBe('Skimmer lid cracked; replace next visit');
    await expect.poll(() => page.getByTestId('waiting').count()).toBe(0);
    const { syncConflicts } = ok(await caller(server, admin)(`{ syncConflicts(filter: {collection: "services", documentId: "${visitId}"}) { edges { node { field } } } }`));
    expect(syncConflicts.edges, 'the phone never conflicted with itself').toEqual([]);
    expect(await page.getByLabel('Notes').inputValue()).toBe('Skimmer lid cracked; replace next visit');
  });

  it('the office app, open all along, notices the server’s new build and takes it on the next navigation', async () => {
    const office = desk.pages()[0]!;
    await office.getByTestId('update-ready').waitFor({ timeout: 30_000 });
    await office.screenshot({ path: path.join(SHOTS, 'office-update-ready.png') });
    expect(await scriptOf(office)).not.toBe(await scriptIn(builds.newOffice));
    const reloaded = office.waitForEvent('load');
    await office.getByRole('link', { name: 'Customers' }).click();
    await reloaded;
    expect(await scriptOf(office)).toBe(await scriptIn(builds.newOffice));
    await office.getByRole('heading', { name: 'Customers' }).waitFor();
    expect(pageErrors).toEqual([]);
  });
});

/**
 * Another build of the office app as far as a page can tell: the current one under other file
 * names (the app tells builds apart by its script's name).
 */
async function renamedOfficeBuild(dir: string): Promise<void> {
  await cp(path.join('server', 'dist', 'app'), dir, { recursive: true });
  for (const file of await readdir(dir)) {
    const renamed = file.replace(/^main-(\w+)\.(js|css)$/, 'main-$1next.$2');
    if (renamed !== file) await rename(path.join(dir, file), path.join(dir, renamed));
  }
}
