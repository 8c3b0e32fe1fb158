import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPoolClient } from '../client-sdk/index.js';
import { addDemoData } from '../server/demo-data.js';
import { provisionOrganization } from '../server/operations/organization.js';
import { sampleFiles } from './fixtures/files.js';
import { caller, ok, tokenFor } from './support/api.js';
import { engines, openTestStore, type TestStore } from './support/engines.js';
import { redeemCode } from './support/phones.js';
import { qrTextOf } from './support/qr.js';
import { startTestServer, type TestServer } from './support/server.js';
import { switchableFetch } from './support/switchable-fetch.js';

/**
 * The office web app (client-sdk/office-app/, served at /app) in Debian's Chromium, against a
 * real server with the demo organization's sample data: on PostgreSQL when TEST_DATABASE_URL is
 * set (CI), else on the embedded store. One engine: the screens are the same on both, the API
 * tests cover each engine, and the whole suite twice took four minutes of CI's ten. A person's view is what
 * is asserted: what appears on screen, and when. Screenshots of every screen are saved under
 * test-output/screenshots/ (git-ignored) for a reviewer to look at.
 */
const CHROMIUM = '/usr/bin/chromium';
const runs = fs.existsSync(CHROMIUM) || Boolean(process.env.REQUIRE_CHROMIUM);
const SHOTS = path.join('test-output', 'screenshots');
/**
 * Request budgets off: these tests poll the server (and the app asks it for photo links and
 * conflict counts) far faster than a person does, which would spend the admin token's 600 a
 * minute; budgets have their own tests (edge-limits).
 */
const SERVER_OPTIONS = { heartbeatMs: 300, worker: {}, reports: { delaySeconds: 0 }, http: { rateLimitPerMinute: 0 } };

// Browser steps under a loaded CI machine take their time: generous per-test and per-step limits.
describe.runIf(runs).each(engines.slice(-1))('office app on %s', { timeout: 120_000 }, (engine) => {
  let store: TestStore;
  let server: TestServer;
  let browser: Browser;
  let admin: string;
  let office: string;
  let tech: { token: string; userId: string };
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    store = await openTestStore(engine);
    server = await startTestServer(store.db, SERVER_OPTIONS);
    const demo = await provisionOrganization(store.db, { name: 'Office Pools' });
    admin = demo.token;
    const viewer = { orgId: demo.organization.id, userId: demo.apiToken.userId, role: 'ADMIN' as const, tokenId: demo.apiToken.id };
    await addDemoData({ db: store.db, blobs: server.blobs, viewer });
    office = (await tokenFor(server, admin, 'OFFICE')).token;
    const issued = await tokenFor(server, admin, 'TECHNICIAN');
    tech = { token: issued.token, userId: issued.apiToken.userId };
    // Sam Carter's route and truck go to this technician, so their phone holds them.
    const gql = caller(server, admin);
    const { inventoryLocations } = ok(await gql('{ inventoryLocations { id name } }'));
    const truck = inventoryLocations.find((l: { name: string }) => l.name === 'Truck (Sam Carter)');
    ok(await gql('mutation($id: ID!, $t: ID) { updateInventoryLocation(id: $id, input: {technicianId: $t}) { id } }', { id: truck.id, t: tech.userId }));
    const first = ok(await gql('{ infiniteCustomers(first: 1) { edges { node { id } } } }')).infiniteCustomers.edges[0].node.id;
    ok(await gql('mutation($id: ID!, $t: ID) { updateCustomer(id: $id, input: {service: {technicianId: $t}}) { id } }', { id: first, t: tech.userId }));
    fs.mkdirSync(SHOTS, { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  }, 120_000);
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
    // Nothing may fail inside the page unseen.
    expect(pageErrors.splice(0)).toEqual([]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await store?.drop();
  });

  /** A new browser (context) signed in with the token, on the board, its replica in sync. */
  async function signedIn(token: string): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
    context.setDefaultTimeout(45_000);
    contexts.push(context);
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    const consoleErrors: string[] = [];
    page.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()));
    await page.goto(`${server.url}/app`);
    await page.getByLabel('API token', { exact: true }).fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page
      .getByRole('heading', { name: 'Dispatch board' })
      .waitFor()
      .catch(async (error: Error) => {
        // Say what the page shows instead, so a failure here explains itself.
        await page.screenshot({ path: path.join(SHOTS, `${engine}-sign-in-failed.png`) }).catch(() => {});
        const shown = await page.locator('body').innerText().catch(() => '(unreadable)');
        throw new Error(`${error.message}\npage shows: ${shown.slice(0, 500)}\nconsole errors: ${consoleErrors.join(' | ')}`);
      });
    await expect.poll(() => page.getByTestId('connection').textContent(), { timeout: 15_000 }).toBe('Online');
    // The first sync of the replica has completed.
    await expect.poll(() => page.getByTestId('last-synced').textContent(), { timeout: 30_000 }).not.toContain('never');
    return page;
  }

  const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `${engine}-${name}.png`), fullPage: true });
  /** A technician's route on the day shown, opened into its visits. */
  async function openRoute(page: Page, technicianId: string) {
    const route = page.locator(`section.route[data-technician="${technicianId}"]`);
    const head = route.locator('.route-head');
    if ((await head.getAttribute('aria-expanded')) !== 'true') await head.click();
    return route;
  }
  /** The visit's page, once this browser's replica holds the visit (until then the page shows it from the server). */
  async function openVisit(page: Page, id: string) {
    await page.goto(`${server.url}/app#/visit/${id}`);
    await page.getByLabel('Billing status', { exact: true }).waitFor();
    await expect.poll(() => page.getByTestId('from-server').count(), { timeout: 20_000 }).toBe(0);
  }
  /** A visit still to do, whatever the time of day: the office schedules one for `technicianId` tomorrow. */
  async function tomorrowsVisit(technicianId: string): Promise<string> {
    const at = new Date();
    at.setDate(at.getDate() + 1);
    at.setHours(10, 0, 0, 0);
    const customer = await aCustomer();
    return ok(await caller(server, admin)('mutation($c: ID, $t: ID, $at: DateTime) { createService(input: {customerId: $c, newTechnicianId: $t, startTime: $at}) { id } }', { c: customer.id, t: technicianId, at: at.toISOString() })).createService.id;
  }

  async function aCustomer(): Promise<{ id: string; name: string }> {
    const data = ok(await caller(server, admin)(`{ infiniteCustomers(first: 1) { edges { node { id firstName lastName } } } }`));
    const node = data.infiniteCustomers.edges[0].node;
    return { id: node.id, name: `${node.firstName} ${node.lastName}` };
  }

  it('refuses a wrong token with a clear message and keeps the right one across a reload', async () => {
    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${server.url}/app`);
    await page.getByLabel('API token', { exact: true }).fill('pst_not-a-real-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('mistyped or has been revoked');
    await shot(page, 'sign-in');
    await page.getByLabel('API token', { exact: true }).fill(tech.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('technician token');

    await page.getByLabel('API token', { exact: true }).fill(office);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Dispatch board' }).waitFor();
    expect(await page.locator('.org-name').textContent()).toBe('Office Pools');
    await page.reload();
    await page.getByRole('heading', { name: 'Dispatch board' }).waitFor();
  });

  it("shows a visit a technician recorded offline, with its photo, within 2 s of the device's sync", async () => {
    const page = await signedIn(office);
    await page.getByRole('button', { name: 'Today' }).click();
    await shot(page, 'board-today');
    await page.getByRole('button', { name: 'Week' }).click();
    await expect.poll(async () => Number((await page.getByTestId('board-count').textContent())!.split(' ')[0])).toBeGreaterThan(30);
    await shot(page, 'board');

    // The technician's phone: synced in the morning, then out of signal.
    const network = switchableFetch();
    const device = await createPoolClient({ baseUrl: server.url, token: tech.token, name: `phone-${engine}`, fetch: network.fetch, retryMs: 100 });
    try {
      device.sync.start();
      await device.sync.awaitInSync({ timeoutMs: 20_000 });
      network.setOnline(false);
      const customer = await aCustomer();
      const visit = await device.recordVisit({
        customerId: customer.id,
        startTime: new Date().toISOString(),
        notes: 'Pump basket cracked; replaced.',
        readings: { freeChlorine: 2.2, ph: 8.4 },
      });
      await device.addVisitPhoto(visit.id, sampleFiles.png(4096), 'Cracked basket');
      // Test strips the truck never received: used all the same, and flagged as negative stock.
      const stock = await stockIds('Test strips (50)', 'Truck (Sam Carter)');
      await device.useStock(stock.itemId, stock.locationId, 2, visit.id);
      await page.getByRole('button', { name: 'Today' }).click();
      const route = await openRoute(page, tech.userId);
      const card = route.locator(`[data-visit-id="${visit.id}"]`);
      expect(await card.count()).toBe(0);

      network.setOnline(true);
      await device.sync.awaitInSync({ timeoutMs: 20_000 });
      const synced = Date.now();
      // The card and its photo (a link asked of the server, then the image) within 2 s; how soon the
      // card alone appears over a full replica is measured by the bench (BENCH_ONLY=app).
      await card.waitFor({ timeout: 2000 });
      await card.locator('img.thumb').waitFor({ timeout: 2000 - (Date.now() - synced) });
      expect(Date.now() - synced).toBeLessThan(2000);
      // The photo is the uploaded one, rendered (a real PNG), and the out-of-range pH is marked.
      expect(await card.locator('img.thumb').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
      expect(await card.locator('.out-of-range').textContent()).toContain('pH 8.4');
      expect(await card.locator('.customer').textContent()).toBe(customer.name);

      // Its page: readings, notes, the photo full size.
      await card.click();
      await page.getByRole('heading', { name: `Visit at ${customer.name}` }).waitFor();
      expect(await page.getByTestId('visit-notes').textContent()).toBe('Pump basket cracked; replaced.');
      expect(await page.locator('table.readings tr.out-of-range').allTextContents()).toEqual([expect.stringMatching(/^pH\s*8\.4.*out of range$/)]);
      await page.getByRole('button', { name: /Open photo Cracked basket/ }).click();
      await page.getByRole('dialog', { name: 'Photo' }).waitFor();
      await shot(page, 'visit-photo');
      await page.getByRole('button', { name: 'Close' }).click();
      expect(await page.getByText('2 × Test strips (50) from Truck (Sam Carter)').count()).toBe(1);
      await shot(page, 'visit');
      await page.getByRole('link', { name: 'Inventory', exact: true }).click();
      const strips = page.locator('tr[data-item="Test strips (50)"] td[data-location="Truck (Sam Carter)"]');
      await expect.poll(() => strips.textContent()).toBe('-2negative');
    } finally {
      await device.close();
    }
  });

  it('moves a visit to another technician by dragging its card onto their route, and to another day and technician by keyboard from its page', async () => {
    const page = await signedIn(office);
    const { users } = ok(await caller(server, admin)('{ users(role: TECHNICIAN) { id name } }'));
    const other = users.find((u: { id: string }) => u.id !== tech.userId).id as string;
    const id = await tomorrowsVisit(other);
    const before = await serverVisit(id);
    await page.getByRole('button', { name: 'Next day' }).click();
    const from = await openRoute(page, other);
    const card = from.locator(`[data-visit-id="${id}"]`);
    await card.dragTo(page.locator(`section.route[data-technician="${tech.userId}"] .route-head`));
    await expect.poll(() => serverVisit(id), { timeout: 10_000 }).toMatchObject({ newTechnicianId: tech.userId, startTime: before.startTime });
    const to = await openRoute(page, tech.userId);
    await to.locator(`[data-visit-id="${id}"]`).waitFor();

    // Without a mouse: Tab to the card, Enter opens it, the form moves it a day on and unassigns it.
    await to.locator(`[data-visit-id="${id}"]`).focus();
    await page.keyboard.press('Enter');
    await page.getByLabel('Technician', { exact: true }).selectOption({ label: 'Unassigned' });
    const start = page.getByLabel('Start', { exact: true });
    const later = new Date(Date.parse(before.startTime) + 86_400_000);
    const pad = (n: number) => String(n).padStart(2, '0');
    await start.fill(`${later.getFullYear()}-${pad(later.getMonth() + 1)}-${pad(later.getDate())}T${pad(later.getHours())}:${pad(later.getMinutes())}`);
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => serverVisit(id), { timeout: 10_000 }).toMatchObject({ newTechnicianId: null, startTime: later.toISOString() });
  });

  it('merges two office users editing the same visit, and the conflict screen shows what was overwritten', async () => {
    const first = await signedIn(admin);
    const second = await signedIn(office);
    const id = await tomorrowsVisit(tech.userId);
    for (const page of [first, second]) await openVisit(page, id);

    // The first goes offline and edits; the second edits the same fields online, and syncs first.
    await first.context().setOffline(true);
    await first.getByLabel('Flag', { exact: true }).fill('CALL FIRST');
    await first.getByLabel('Notes', { exact: true }).fill('Gate locked, key with neighbour');
    await first.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => first.getByTestId('pending').textContent()).toContain('waiting to sync');
    await second.getByLabel('Flag', { exact: true }).fill('NO ACCESS');
    await second.getByLabel('Notes', { exact: true }).fill('Dog in the yard');
    await second.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => serverVisit(id), { timeout: 10_000 }).toMatchObject({ flag: 'NO ACCESS', notes: 'Dog in the yard' });

    await first.context().setOffline(false);
    // The flag is office-owned: the office's later push wins. The notes are technician-owned: an
    // office push does not overwrite them, so the second's notes stay.
    const merged = { flag: 'CALL FIRST', notes: 'Dog in the yard' };
    await expect.poll(() => serverVisit(id), { timeout: 15_000 }).toMatchObject(merged);
    for (const page of [first, second]) {
      await expect.poll(() => page.getByLabel('Flag', { exact: true }).inputValue(), { timeout: 10_000 }).toBe(merged.flag);
      await expect.poll(() => page.getByTestId('visit-notes').textContent(), { timeout: 10_000 }).toBe(merged.notes);
    }

    await second.goto(`${server.url}/app#/conflicts`);
    const rows = second.locator('table.conflicts tbody tr');
    await rows.first().waitFor();
    const text = await rows.allTextContents();
    expect(text.find((r) => r.includes('flag'))).toMatch(/CALL FIRST.*NO ACCESS.*office-owned field, pushed by ADMIN/);
    expect(text.find((r) => r.includes('notes'))).toMatch(/Dog in the yard.*Gate locked, key with neighbour.*technician-owned field, pushed by ADMIN/);
    await shot(second, 'conflicts');
  });

  it("two tabs of one browser share its replica: one syncs, both show a technician's new visit and each other's edits, and the other tab tells the truth", async () => {
    const first = await signedIn(office);
    // A second tab of the same browser, signed in already (the token is kept in the browser).
    const second = await first.context().newPage();
    second.on('pageerror', (error) => pageErrors.push(String(error)));
    await second.goto(`${server.url}/app`);
    await second.getByRole('heading', { name: 'Dispatch board' }).waitFor();
    // The tab that does not sync says what the one that does sees.
    await expect.poll(() => second.getByTestId('connection').textContent(), { timeout: 15_000 }).toBe('Online');
    await expect.poll(() => second.getByTestId('last-synced').getAttribute('data-first-sync')).toBe('done');
    await expect.poll(liveStreams, { timeout: 10_000 }).toBe(1);

    // A technician's phone records a visit for today: both boards count it.
    const count = (page: Page) => page.locator('[data-testid=board-count][data-source=replica]').textContent().then((t) => Number(t!.split(' ')[0]));
    for (const page of [first, second]) await page.getByRole('button', { name: 'Today' }).click();
    const before = await count(first);
    expect(await count(second)).toBe(before);
    const device = await createPoolClient({ baseUrl: server.url, token: tech.token, name: `two-tabs-phone-${engine}`, retryMs: 100 });
    try {
      device.sync.start();
      await device.sync.awaitInSync({ timeoutMs: 20_000 });
      await device.recordVisit({ customerId: (await aCustomer()).id, startTime: new Date().toISOString(), notes: 'Recorded while two office tabs were open' });
      await device.sync.awaitInSync({ timeoutMs: 20_000 });
    } finally {
      await device.close();
    }
    for (const page of [first, second]) await expect.poll(() => count(page), { timeout: 10_000 }).toBe(before + 1);

    // An edit in either tab shows in the other at once, and reaches the server.
    const id = await tomorrowsVisit(tech.userId);
    for (const page of [first, second]) await openVisit(page, id);
    await second.getByLabel('Flag', { exact: true }).fill('SAVED IN THE SECOND TAB');
    await second.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => first.getByLabel('Flag', { exact: true }).inputValue(), { timeout: 2_000 }).toBe('SAVED IN THE SECOND TAB');
    await first.getByLabel('Notes', { exact: true }).fill('Saved in the first tab');
    await first.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => second.getByTestId('visit-notes').textContent(), { timeout: 2_000 }).toBe('Saved in the first tab');
    await expect.poll(() => serverVisit(id), { timeout: 10_000 }).toMatchObject({ flag: 'SAVED IN THE SECOND TAB', notes: 'Saved in the first tab' });
    for (const page of [first, second]) await expect.poll(() => page.getByTestId('pending').textContent(), { timeout: 10_000 }).toBe('All changes saved');
    expect(await liveStreams()).toBe(1);
  });

  it('takes a quote from creation with lines and tax through SENT to ACCEPTED, with a PDF', async () => {
    const page = await signedIn(office);
    const customer = await aCustomer();
    await page.getByRole('link', { name: 'Quotes', exact: true }).click();
    await page.getByRole('heading', { name: 'New quote' }).waitFor();
    await page.getByLabel('Customer', { exact: true }).fill(customer.name.split(' ')[1]!);
    await page.getByRole('option', { name: new RegExp(customer.name) }).first().click();
    await page.getByLabel('Title', { exact: true }).fill('Heater install');
    await page.getByLabel('Description', { exact: true }).fill('Gas heater, 400k BTU');
    await page.getByLabel('Quantity', { exact: true }).fill('2');
    await page.getByLabel('Unit price', { exact: true }).fill('100');
    await shot(page, 'quotes');
    await page.getByRole('button', { name: 'Create quote' }).click();

    // The server priced it: 200 plus the demo's 8.6% default tax.
    await expect.poll(() => page.getByTestId('quote-total').textContent(), { timeout: 10_000 }).toBe('$217.20');
    expect(await page.getByTestId('quote-status').textContent()).toBe('DRAFT');
    await page.getByRole('button', { name: 'Mark as sent' }).click();
    await expect.poll(() => page.getByTestId('quote-status').textContent(), { timeout: 10_000 }).toBe('SENT');
    await page.getByRole('button', { name: 'Customer accepted' }).click();
    await expect.poll(() => page.getByTestId('quote-status').textContent(), { timeout: 10_000 }).toBe('ACCEPTED');
    expect(await page.getByRole('button', { name: 'Mark as sent' }).count()).toBe(0);

    // Every quote has a PDF: generated from the quote until one is uploaded.
    await expect.poll(() => page.getByTestId('quote-pdf-kind').textContent()).toBe('Generated from the quote');
    const generated = await fetch((await page.getByTestId('quote-pdf').getAttribute('href'))!);
    expect(generated.headers.get('content-type')).toBe('application/pdf');
    expect((await generated.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    await page.getByLabel('Upload a PDF (used instead of the generated one)', { exact: true }).setInputFiles({ name: 'quote.pdf', mimeType: 'application/pdf', buffer: sampleFiles.pdf(3000) });
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await expect.poll(() => page.getByTestId('quote-pdf-kind').textContent(), { timeout: 10_000 }).toBe('Uploaded PDF');
    const id = page.url().split('/').pop()!;
    const stored = ok(await caller(server, admin)(`query($id: ID!) { quote(selector: {id: $id}) { status total acceptedAt pdfUrl } }`, { id })).quote;
    expect(stored).toMatchObject({ status: 'ACCEPTED', total: 217.2 });
    expect(stored.acceptedAt).not.toBeNull();
    expect(stored.pdfUrl).toContain('/files/');
    await shot(page, 'quote');
    await page.getByRole('button', { name: 'Remove the uploaded PDF' }).click();
    await expect.poll(() => page.getByTestId('quote-pdf-kind').textContent(), { timeout: 10_000 }).toBe('Generated from the quote');
    // The list, filtered by status.
    await page.getByRole('link', { name: 'Quotes', exact: true }).click();
    await page.getByRole('button', { name: 'accepted', exact: true }).click();
    // Beside it, the demo's own accepted quote (a heater repair, billed from the quote).
    const accepted = async () =>
      (await page.locator('table.list tbody tr').allTextContents()).map((row) => ['Heater install', 'Heater repair'].find((title) => row.includes(title)) ?? row).sort();
    await expect.poll(accepted, { timeout: 10_000 }).toEqual(['Heater install', 'Heater repair']);
    await page.getByRole('button', { name: 'draft', exact: true }).click();
    await expect.poll(() => page.locator('table.list tbody tr').allTextContents()).toEqual([expect.stringContaining('Pump replacement')]);
  });

  it('transfers stock between locations, refuses a transfer of more than the source holds, and shows the history', async () => {
    const page = await signedIn(office);
    await page.getByRole('link', { name: 'Inventory', exact: true }).click();
    const row = page.locator('tr[data-item="Liquid chlorine 12.5%"]');
    await row.waitFor();
    const cell = (location: string) => row.locator(`td[data-location="${location}"]`).textContent();
    const warehouse = Number(await cell('Warehouse'));
    const truck = Number(await cell('Truck (Dev Patel)'));
    const transfer = async (quantity: number) => {
      await page.getByLabel('Item', { exact: true }).selectOption({ label: 'Liquid chlorine 12.5%' });
      await page.getByLabel('From', { exact: true }).selectOption({ label: 'Warehouse' });
      await page.getByLabel('To', { exact: true }).selectOption({ label: 'Truck (Dev Patel)' });
      await page.getByLabel('Quantity', { exact: true }).fill(String(quantity));
      await page.getByRole('button', { name: 'Transfer' }).click();
    };
    await transfer(10);
    await expect.poll(() => cell('Warehouse'), { timeout: 10_000 }).toBe(String(warehouse - 10));
    expect(await cell('Truck (Dev Patel)')).toBe(String(truck + 10));

    await transfer(100_000);
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/Warehouse holds \d+ of Liquid chlorine 12.5%; cannot transfer 100000/);
    expect(await cell('Warehouse')).toBe(String(warehouse - 10));

    await row.getByRole('button', { name: 'Liquid chlorine 12.5%' }).click();
    const history = page.locator('section[aria-labelledby="history-title"] tbody tr');
    await expect.poll(() => history.allTextContents()).toContainEqual(expect.stringMatching(/transfer.*Warehouse → Truck \(Dev Patel\)/i));
    await shot(page, 'inventory');
  });

  it("shows a visit's water balance and doses against the organization's ranges, and edits those ranges under Settings", async () => {
    // A demo visit whose pH is above every default range: acid is suggested.
    const { infiniteServices } = ok(await caller(server, admin)('{ infiniteServices(first: 100) { edges { node { id chemicalReadings { ph totalAlkalinity } } } } }'));
    const visit = infiniteServices.edges
      .map((e: { node: any }) => e.node)
      .find((v: { chemicalReadings: { ph: number; totalAlkalinity: number | null } | null }) => (v.chemicalReadings?.ph ?? 0) >= 7.9 && v.chemicalReadings?.totalAlkalinity != null);
    const page = await signedIn(office);
    await page.goto(`${server.url}/app#/visit/${encodeURIComponent(visit.id)}`);
    const balance = page.getByTestId('water-balance');
    await expect.poll(() => balance.textContent()).toMatch(/fl oz muriatic acid: pH [\d.]+ → 7\.5/);
    expect(await balance.textContent()).toMatch(/CSI -?\d\.\d\d · LSI -?\d\.\d\d \(C 12\.1\) · formulas v1/);
    await shot(page, 'visit-balance');

    // The office widens the pH range of every kind of water to 8.4: the same visit needs no acid.
    await page.getByRole('link', { name: 'Settings', exact: true }).click();
    await page.getByRole('heading', { name: 'Water chemistry' }).waitFor();
    for (const body of ['Pool', 'Spa', 'Salt pool']) await page.getByLabel(`${body} pH max`, { exact: true }).fill('8.4');
    await page.getByLabel('pH and alkalinity down with', { exact: true }).selectOption('DRY_ACID');
    await page.getByLabel('Muriatic acid cap per visit', { exact: true }).fill('32');
    await page.getByRole('button', { name: 'Save water chemistry' }).click();
    await page.getByText('Saved. Phones follow at their next sync.').waitFor();
    await shot(page, 'settings-water');
    // A range out of order is refused by the server, naming the field.
    await page.getByLabel('Spa pH min', { exact: true }).fill('8.5');
    await page.getByRole('button', { name: 'Save water chemistry' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Invalid input: waterChemistry.spa.ph: must have min <= target <= max');
    const saved = ok(await caller(server, admin)('{ organization { settings { waterChemistry { pool { ph { max } } products { chemical } caps { chemical amount unit } } } } }')).organization.settings.waterChemistry;
    expect(saved).toEqual({ pool: { ph: { max: 8.4 } }, products: [{ chemical: 'LIQUID_CHLORINE' }, { chemical: 'DRY_ACID' }], caps: [{ chemical: 'MURIATIC_ACID', amount: 32, unit: 'FL_OZ' }] });

    await page.goto(`${server.url}/app#/visit/${encodeURIComponent(visit.id)}`);
    await expect.poll(() => balance.textContent(), { timeout: 20_000 }).not.toMatch(/acid: pH/);
    await page.goto(`${server.url}/app#/settings`);
    await page.getByRole('button', { name: 'Back to the defaults' }).click();
    await page.goto(`${server.url}/app#/visit/${encodeURIComponent(visit.id)}`);
    await expect.poll(() => balance.textContent(), { timeout: 20_000 }).toMatch(/muriatic acid: pH/);
  });

  it("runs a customer export whose progress bar reaches 100%, and downloads the CSV", async () => {
    const page = await signedIn(office);
    await page.getByRole('link', { name: 'Bulk operations' }).click();
    await page.getByLabel('Operation', { exact: true }).selectOption('CUSTOMERS_EXPORT');
    await page.getByLabel('With tag', { exact: true }).fill('vip');
    await page.getByRole('button', { name: 'Start' }).click();
    await expect.poll(() => page.getByTestId('bulk-progress').getAttribute('value'), { timeout: 20_000 }).toBe('100');
    expect(await page.getByTestId('bulk-status').textContent()).toContain('succeeded');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('bulk-download').click()]);
    const csv = fs.readFileSync((await download.path())!, 'utf8').trim().split('\n');
    const vip = ok(await caller(server, admin)(`{ infiniteCustomers(selector: {filters: {tags: {has: "vip"}}}) { totalCount } }`)).infiniteCustomers.totalCount;
    expect(vip).toBeGreaterThan(0);
    expect(csv.length).toBe(vip + 1);
    await shot(page, 'bulk');
  });

  it("shows a completed visit's report to the customer, sends it again, and turns reports off in settings", async () => {
    const gql = caller(server, admin);
    const customer = ok(await gql(`mutation { createCustomer(input: {firstName: "Rita", lastName: "Report", email: "rita@customer.example"}) { id } }`)).createCustomer.id;
    const visit = ok(await gql(`mutation($c: ID!, $t: DateTime!) { createService(input: {customerId: $c, startTime: $t, endTime: $t, notes: "Cleaned"}) { id } }`, { c: customer, t: new Date().toISOString() })).createService.id;
    const page = await signedIn(office);
    await page.setViewportSize({ width: 1366, height: 768 });
    await page.goto(`${server.url}/app#/visit/${visit}`);
    // No mail server in this test: the message is kept in the outbox, and the panel says so.
    await expect.poll(() => page.getByTestId('visit-report-state').textContent(), { timeout: 15_000 }).toBe('Sent to the outbox: email to rita@customer.example; no phone enabled for texts');
    await expect.poll(() => page.getByTestId('visit-report').textContent()).toContain('Email to rita@customer.example: stored (no sender configured on the server)');
    await page.getByRole('button', { name: 'Send the report again' }).click();
    await expect.poll(() => page.getByTestId('visit-report-state').textContent(), { timeout: 15_000 }).toContain('(sending 2)');
    await page.getByTestId('visit-report').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SHOTS, `${engine}-visit-report.png`) });
    expect(ok(await gql(`query($id: ID!) { visitReport(serviceId: $id) { round messages { channel } } }`, { id: visit })).visitReport).toMatchObject({ round: 2 });

    await page.getByRole('link', { name: 'Settings' }).click();
    const toggle = page.getByLabel("Send each completed visit's report to its customer (email and text, as the customer chose)", { exact: true });
    await expect.poll(() => toggle.isChecked()).toBe(true);
    await toggle.uncheck();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(async () => ok(await gql('{ organization { settings { sendVisitReports } } }')).organization.settings.sendVisitReports).toBe(false);
    ok(await gql('mutation { updateOrganizationSettings(input: {sendVisitReports: true}) { sendVisitReports } }'));
  });

  it('keeps working while the server is stopped: the board shows the replica, an edit waits and syncs when it is back', async () => {
    const page = await signedIn(office);
    const id = await tomorrowsVisit(tech.userId);
    await openVisit(page, id);
    const port = Number(new URL(server.url).port);

    await server.close();
    try {
      await expect.poll(() => page.getByTestId('connection').textContent(), { timeout: 10_000 }).toBe('Offline');
      await page.getByLabel('Billing status', { exact: true }).selectOption('READY');
      await page.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => page.getByTestId('pending').textContent()).toBe('1 change waiting to sync');
      // Still a working app: the board comes from the replica.
      await page.getByRole('link', { name: 'Dispatch board' }).click();
      await page.getByRole('button', { name: 'Week', exact: true }).click();
      await expect.poll(async () => Number((await page.getByTestId('board-count').textContent())!.split(' ')[0])).toBeGreaterThan(30);
      expect(await page.getByTestId('board-count').getAttribute('data-source')).toBe('replica');
      await shot(page, 'offline');
    } finally {
      // Started again where it was (the next tests need it, whatever happened here).
      server = await startTestServer(store.db, { ...SERVER_OPTIONS, port });
    }
    await expect.poll(() => page.getByTestId('pending').textContent(), { timeout: 20_000 }).toBe('All changes saved');
    expect(await serverVisit(id)).toMatchObject({ billingStatus: 'READY' });
    await expect.poll(() => page.getByTestId('connection').textContent(), { timeout: 10_000 }).toBe('Online');
  });

  it('shows a customer with contact data, bodies of water, quoted prices and a chemistry trend; search finds them as you type', async () => {
    const page = await signedIn(office);
    const customer = await aCustomer();
    await page.getByRole('link', { name: 'Customers', exact: true }).click();
    await page.getByLabel('Search', { exact: true }).fill(customer.name);
    await expect.poll(() => page.locator('table.list tbody tr').count()).toBe(1);
    await shot(page, 'customers');
    await page.getByRole('link', { name: customer.name }).click();
    await page.getByRole('heading', { name: customer.name }).waitFor();
    await page.getByTestId('trend').waitFor();
    expect(await page.locator('figure.trend').count()).toBe(3);
    expect(await page.getByText('Main pool: pool').count()).toBe(1);
    await expect.poll(() => page.getByText(/Weekly service: \$\d+/).count()).toBe(1);
    await shot(page, 'customer');
  });

  it('manages settings and tokens: a new token is shown once and works; a revoked one is refused at sign-in', async () => {
    const page = await signedIn(admin);
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByLabel('Quote number prefix', { exact: true }).fill('PQ-');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Saved.').waitFor();
    expect(ok(await caller(server, admin)(`{ organization { settings { quotePrefix } } }`)).organization.settings.quotePrefix).toBe('PQ-');
    // A logo: uploaded here, in the header at once.
    await page.getByLabel('Logo (JPEG, PNG or WebP)', { exact: true }).setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: sampleFiles.png(1024) });
    await page.getByRole('button', { name: 'Upload logo' }).click();
    await page.locator('.sync-bar img.logo').waitFor();
    expect(await page.locator('.sync-bar img.logo').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);

    await page.getByLabel('Name', { exact: true }).last().fill("Maria's tablet");
    await page.getByLabel('Role', { exact: true }).selectOption('OFFICE');
    await page.getByRole('button', { name: 'Create token' }).click();
    const token = (await page.getByTestId('new-token').textContent())!;
    expect(token).toMatch(/^pst_/);
    await shot(page, 'settings');
    await page.getByRole('button', { name: "Revoke Maria's tablet" }).click();
    await page.getByText(/^revoked/).waitFor();

    const other = await browser.newContext();
    contexts.push(other);
    const signIn = await other.newPage();
    await signIn.goto(`${server.url}/app`);
    await signIn.getByLabel('API token', { exact: true }).fill(token);
    await signIn.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => signIn.getByRole('alert').textContent()).toContain('revoked');
  });

  it("signs a technician's phone in by a one-time code: the QR code holds the technician app's link with the code, and no lasting token is shown or sent", async () => {
    // The office (an OFFICE user, not only an ADMIN) at Settings, Phones.
    const page = await signedIn(office);
    const tokensSent: string[] = [];
    page.on('response', async (response) => {
      const body = await response.text().catch(() => '');
      if (/pst_/.test(body)) tokensSent.push(response.url());
    });
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('button', { name: "Sign in TECHNICIAN user's phone" }).click();
    const qr = page.getByRole('img', { name: "QR code that signs TECHNICIAN user's phone in to the technician app" });
    const code = (await page.getByTestId('phone-code').textContent())!;
    expect(code).toMatch(/^[A-Z]{5}-[A-Z]{5}$/);
    // What a phone's camera reads: the technician app's link with the code in its fragment.
    expect(await qrTextOf(qr)).toBe(`${server.url}/tech/#code=${code}`);
    expect(await page.getByTestId('phone-link').textContent()).toBe(`${server.url}/tech/#code=${code}`);
    expect(await page.content()).not.toContain('pst_');
    expect(tokensSent).toEqual([]);
    await shot(page, 'phones');

    // The phone trades it once for a token of its own; a photo of the screen is worth nothing after.
    const phone = await redeemCode(server, { code, deviceName: 'Pixel 8' });
    expect(phone.status).toBe(201);
    expect(ok(await caller(server, phone.body.token)('{ viewer { user { id } } }')).viewer.user.id).toBe(tech.userId);
    expect((await redeemCode(server, { code })).body.error).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'code-used' });
  });

  it('first loads at most 300 KB of compressed JavaScript, cached for a year, and labels every control', async () => {
    // What Chromium itself downloads on a first visit, as sent on the wire.
    const context = await browser.newContext();
    contexts.push(context);
    const first = await context.newPage();
    const scripts: { url: string; bytes: number; encoding: string | undefined; cache: string | undefined }[] = [];
    first.on('requestfinished', async (request) => {
      const response = await request.response();
      if (request.resourceType() !== 'script' || !response) return;
      const headers = await response.allHeaders();
      scripts.push({ url: request.url(), bytes: (await request.sizes()).responseBodySize, encoding: headers['content-encoding'], cache: headers['cache-control'] });
    });
    await first.goto(`${server.url}/app`);
    await first.getByLabel('API token', { exact: true }).waitFor();
    await expect.poll(() => scripts.length, { timeout: 20_000 }).toBeGreaterThan(0);
    const total = scripts.reduce((sum, s) => sum + s.bytes, 0);
    expect(scripts.every((s) => s.encoding === 'br' && s.cache?.includes('immutable'))).toBe(true);
    expect(total).toBeGreaterThan(50 * 1024);
    expect(total).toBeLessThan(300 * 1024);

    const page = await signedIn(admin);
    for (const screen of ['board', 'customers', 'quotes', 'inventory', 'bulk', 'settings']) {
      await page.goto(`${server.url}/app#/${screen}`);
      await page.locator('main h1').waitFor();
      // The screen itself, not its loading state, is what is checked.
      await expect.poll(() => page.locator('main .loading').count(), { timeout: 30_000 }).toBe(0);
      const unlabelled = await page.evaluate(() =>
        Array.from(document.querySelectorAll('input, select, textarea, button'))
          .filter((el) => !(el as HTMLElement).innerText?.trim() && !el.getAttribute('aria-label') && !(el as HTMLInputElement).labels?.length)
          .map((el) => el.outerHTML.slice(0, 80)),
      );
      expect(unlabelled, screen).toEqual([]);
    }
  });

  async function stockIds(item: string, location: string) {
    const data = ok(await caller(server, admin)(`{ inventoryLocations { id name } infiniteInventoryItems(first: 50) { edges { node { id name } } } }`));
    const itemId = data.infiniteInventoryItems.edges.find((e: { node: { name: string } }) => e.node.name === item).node.id as string;
    const locationId = data.inventoryLocations.find((l: { name: string }) => l.name === location).id as string;
    return { itemId, locationId };
  }

  /** Live sync streams open on the server (its metrics). */
  async function liveStreams(): Promise<number> {
    return Number(/^pool_live_subscribers (\d+)/m.exec(await (await fetch(`${server.url}/metrics`)).text())?.[1]);
  }

  async function serverVisit(id: string) {
    const data = ok(await caller(server, admin)(`query($id: ID) { infiniteServices(first: 1, selector: {filters: {id: {eq: $id}}}) { edges { node { id newTechnicianId startTime flag notes billingStatus } } } }`, { id }));
    return data.infiniteServices.edges[0]?.node;
  }
});
