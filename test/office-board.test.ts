import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page, type Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { provisionOrganization } from '../server/operations/organization.js';
import { caller, ok, tokenFor } from './support/api.js';
import { seedCompany, type Company } from './support/company.js';
import { openTestStore, type TestStore } from './support/engines.js';
import { startTestServer, type TestServer } from './support/server.js';

/**
 * The dispatch board of a company larger than the demo's (20 technicians, 1,300 customers, 5,200
 * visits from two weeks back to next week, 260 today), in Debian's Chromium at 1366x768, signing in
 * on a fresh profile: the first view only ever grows (it never shows fewer visits than it showed),
 * the page stays small whatever the company's size (routes, not cards), and a visit another office
 * user gives to someone else moves from one route to the other while the board is open.
 */
const CHROMIUM = '/usr/bin/chromium';
const runs = fs.existsSync(CHROMIUM) || Boolean(process.env.REQUIRE_CHROMIUM);
const SHOTS = path.join('test-output', 'screenshots');
const TECHNICIANS = 20;

describe.runIf(runs)('the dispatch board of a 20-technician company', { timeout: 180_000 }, () => {
  let store: TestStore;
  let server: TestServer;
  let browser: Browser;
  let admin: string;
  let office: string;
  let company: Company;
  let page: Page;
  const pageErrors: string[] = [];
  const consoleLines: string[] = [];
  const syncRequests: string[] = [];

  beforeAll(async () => {
    store = await openTestStore('pglite');
    server = await startTestServer(store.db, { http: { rateLimitPerMinute: 0 } });
    admin = (await provisionOrganization(store.db, { name: 'Valley Pools' })).token;
    company = await seedCompany(server.url, admin, TECHNICIANS);
    // This file took 162 s and 136 s in clean-clone CIs (the seed 120 s of the second) where it
    // usually takes 18-39 s here, alone or beside the simulation (the seed 6-10 s; once 86 s): the
    // seed's parts are printed so the next slow run says where its time went.
    const { people, customers, visits } = company.seconds;
    console.log(`office board: the company seeded through the API in ${people} s (people and trucks, GraphQL) + ${customers} s (customers) + ${visits} s (visits)`);
    office = (await tokenFor(server, admin, 'OFFICE')).token;
    fs.mkdirSync(SHOTS, { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
    const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
    context.setDefaultTimeout(60_000);
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    // What a stalled first sync leaves to go on (it stalled once in CI, not reproduced): the page's
    // warnings and errors, and its last sync requests with their outcome.
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') consoleLines.push(`${message.type()}: ${message.text()}`.slice(0, 300));
    });
    const started = Date.now();
    const noteRequest = (request: Request, outcome: string) => {
      if (request.url().includes('/sync/')) syncRequests.push(`${((Date.now() - started) / 1000).toFixed(1)} s ${outcome} ${request.method()} ${request.url().replace(server.url, '').slice(0, 120)}`);
    };
    page.on('requestfinished', (request) => void request.response().then((r) => noteRequest(request, String(r?.status() ?? '?'))));
    page.on('requestfailed', (request) => noteRequest(request, `failed (${request.failure()?.errorText ?? '?'})`));
    // Every count the board shows, from the page's first script on.
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { boardCounts: string[] }).boardCounts = seen;
      new MutationObserver(() => {
        const count = document.querySelector('[data-testid=board-count]');
        const text = count ? `${count.textContent} [${count.getAttribute('data-source') ?? ''}]` : null;
        if (text !== null && text !== seen.at(-1)) seen.push(text);
      }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
    });
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await store?.drop();
  });

  const visitsShown = (text: string) => Number(/^(\d+) visits?/.exec(text)?.[1] ?? NaN);

  it("signs in to today's routes, and the first view never shows fewer visits than it did", async () => {
    await page.goto(`${server.url}/app`);
    await page.getByLabel('API token', { exact: true }).fill(office);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('[data-testid=board-count][data-source=replica]').waitFor();
    await page
      .locator('[data-testid=last-synced][data-first-sync=done]')
      .waitFor({ timeout: 120_000 })
      .catch(async (error: Error) => {
        const state = await page.locator('.sync-state').innerText().catch(() => '(no sync bar)');
        throw new Error(`${error.message}\nsync bar: ${state}\nlast sync requests:\n${syncRequests.slice(-25).join('\n')}\nconsole:\n${consoleLines.slice(-20).join('\n')}`);
      });
    const counts = await page.evaluate(() => (window as unknown as { boardCounts: string[] }).boardCounts);
    const shown = counts.map(visitsShown).filter((n) => !Number.isNaN(n));
    expect(shown.length, `counts seen: ${counts.join(' | ')}`).toBeGreaterThan(0);
    for (let i = 1; i < shown.length; i++) expect(shown[i], `counts seen: ${counts.join(' | ')}`).toBeGreaterThanOrEqual(shown[i - 1]!);
    expect(shown.at(-1)).toBe(company.today);
    // The day came whole from the server first (asked as the token was signed in, before the
    // replica opened), and the board never went blank between the server's answer and the replica's.
    const firstShown = counts.findIndex((c) => !Number.isNaN(visitsShown(c)));
    expect(counts[firstShown], `counts seen: ${counts.join(' | ')}`).toMatch(new RegExp(`^${company.today} visits, \\d+ done \\[server\\]$`));
    expect(counts.slice(firstShown).every((c) => !Number.isNaN(visitsShown(c))), `counts seen: ${counts.join(' | ')}`).toBe(true);
    // A route per technician, drawn only as far as the window shows: the page stays small.
    expect(await page.locator('section.route').count()).toBeLessThan(TECHNICIANS);
    expect(await page.evaluate(() => document.getElementsByTagName('*').length)).toBeLessThan(10_000);
    await page.screenshot({ path: path.join(SHOTS, 'board-company-day.png') });
    // A larger screen shows more routes, each with its name and counts (here all 20 fit).
    const drawnAt768 = await page.locator('section.route').count();
    await page.setViewportSize({ width: 1920, height: 1080 });
    await expect.poll(() => page.locator('section.route').count()).toBeGreaterThan(drawnAt768);
    const heads = await page.locator('section.route .route-head').evaluateAll((rows) => rows.filter((r) => r.getBoundingClientRect().bottom <= innerHeight).map((r) => (r as HTMLElement).innerText));
    expect(heads.length).toBeGreaterThan(0);
    for (const head of heads) expect(head).toMatch(/Tech \d{3}[\s\S]*\d+ (done|to do)/);
    expect(await page.evaluate(() => document.getElementsByTagName('*').length)).toBeLessThan(10_000);
    await page.screenshot({ path: path.join(SHOTS, 'board-company-day-1920.png') });
    await page.setViewportSize({ width: 1366, height: 768 });
    expect(pageErrors).toEqual([]);
  });

  it('shows the week as visits per technician and day, from the replica', async () => {
    await page.getByRole('button', { name: 'Week', exact: true }).click();
    await page.locator('[data-testid=board-count][data-source=replica]').waitFor();
    const monday = new Date();
    monday.setHours(0, 0, 0, 0);
    monday.setDate(monday.getDate() - ((monday.getDay() + 6) % 7));
    const sunday = new Date(monday);
    sunday.setDate(sunday.getDate() + 7);
    expect(visitsShown((await page.getByTestId('board-count').textContent())!)).toBe(await serverCount(monday, sunday));
    await page.screenshot({ path: path.join(SHOTS, 'board-company-week.png') });
    await page.getByRole('button', { name: 'Today' }).click();
  });

  it("moves a visit another office user gives to someone else from one route to the other, live", async () => {
    const [from, to] = company.technicians;
    const counts = async (id: string) => (await page.locator(`section.route[data-technician="${id}"] [data-testid=route-counts]`).textContent())!;
    await page.getByLabel('Filter by technician or customer').fill(from!.name);
    await page.locator(`section.route[data-technician="${from!.id}"]`).waitFor();
    const head = page.locator(`section.route[data-technician="${from!.id}"] .route-head`);
    await head.click();
    const card = page.locator(`section.route[data-technician="${from!.id}"] .visit-card`).first();
    const visitId = (await card.getAttribute('data-visit-id'))!;
    const before = await counts(from!.id);
    await caller(server, admin)('mutation($id: ID!, $t: ID) { updateService(id: $id, input: {newTechnicianId: $t}) { id } }', { id: visitId, t: to!.id }).then(ok);
    await page.locator(`section.route[data-technician="${from!.id}"] [data-visit-id="${visitId}"]`).waitFor({ state: 'detached', timeout: 5000 });
    expect(await counts(from!.id)).not.toBe(before);
    await page.getByLabel('Filter by technician or customer').fill(to!.name);
    await page.locator(`section.route[data-technician="${to!.id}"] .route-head`).click();
    await page.locator(`section.route[data-technician="${to!.id}"] [data-visit-id="${visitId}"]`).waitFor({ timeout: 5000 });
    expect(pageErrors).toEqual([]);
  });

  /** Visits the server has in [from, to), counted page by page. */
  async function serverCount(from: Date, to: Date): Promise<number> {
    let total = 0;
    let after: string | null = null;
    do {
      const page: any = ok(
        await caller(server, admin)(
          'query($from: DateTime, $to: DateTime, $after: String) { infiniteServices(first: 100, after: $after, selector: {filters: {startTime: {gte: $from, lt: $to}}}) { edges { cursor } pageInfo { hasNextPage endCursor } } }',
          { from: from.toISOString(), to: to.toISOString(), after },
        ),
      ).infiniteServices;
      total += page.edges.length;
      after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
    } while (after);
    return total;
  }
});
