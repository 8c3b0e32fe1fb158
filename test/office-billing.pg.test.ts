import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addDemoData } from '../server/demo-data.js';
import { provisionOrganization } from '../server/operations/organization.js';
import { caller, ok, tokenFor } from './support/api.js';
import { engines, openTestStore, type TestStore } from './support/engines.js';
import { startTestServer, type TestServer } from './support/server.js';

/**
 * The office app's billing screens in Debian's Chromium, against a real server holding the demo
 * organization and one customer of this test's own with two visits done in the period billed: the
 * month is run (its progress bar to 100%, a customer not ready for invoice listed with the reason), that
 * customer's draft shows each visit as a line with its date, it is finalized (numbered), a partial
 * payment is recorded and their balance due drops by it on the screens that show it (the payment
 * screen, unpaid invoices, the statement, the aging). One engine, as the other office app tests.
 * The billing screen's screenshot is the one in client-sdk/office-app/ (the README shows it).
 */
const CHROMIUM = '/usr/bin/chromium';
const runs = fs.existsSync(CHROMIUM) || Boolean(process.env.REQUIRE_CHROMIUM);
const SHOTS = path.join('test-output', 'screenshots');
const README_SHOT = path.join('client-sdk', 'office-app', 'billing-screenshot.png');
const SERVER_OPTIONS = { heartbeatMs: 300, worker: {}, reports: { delaySeconds: 0 }, http: { rateLimitPerMinute: 0 } };

/** The first and the last day of the month before this one, as YYYY-MM-DD. */
function lastMonth(now = new Date()) {
  const day = (d: Date) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
  return { start: day(new Date(now.getFullYear(), now.getMonth() - 1, 1)), end: day(new Date(now.getFullYear(), now.getMonth(), 0)), days: [new Date(now.getFullYear(), now.getMonth() - 1, 10, 10), new Date(now.getFullYear(), now.getMonth() - 1, 17, 10)] };
}

describe.runIf(runs).each(engines.slice(-1))('office app billing on %s', { timeout: 180_000 }, (engine) => {
  let store: TestStore;
  let server: TestServer;
  let browser: Browser;
  let admin: string;
  let office: string;
  let customerId: string;
  const month = lastMonth();
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    store = await openTestStore(engine);
    server = await startTestServer(store.db, SERVER_OPTIONS);
    const demo = await provisionOrganization(store.db, { name: 'Billing Pools' });
    admin = demo.token;
    const viewer = { orgId: demo.organization.id, userId: demo.apiToken.userId, role: 'ADMIN' as const, tokenId: demo.apiToken.id };
    await addDemoData({ db: store.db, blobs: server.blobs, viewer });
    office = (await tokenFor(server, admin, 'OFFICE')).token;
    const gql = caller(server, admin);
    // A customer billed per visit at 120.00, with two visits done last month.
    customerId = ok(
      await gql(`mutation { createCustomer(input: {firstName: "Bill", lastName: "Payer", email: "bill@customer.example", readyForInvoice: true, billingMethod: "PER_VISIT", service: {rate: 120}}) { id } }`),
    ).createCustomer.id;
    for (const at of month.days) {
      const end = new Date(at.getTime() + 30 * 60_000).toISOString();
      ok(await gql(`mutation($c: ID!, $s: DateTime!, $e: DateTime!) { createService(input: {customerId: $c, startTime: $s, endTime: $e, notes: "Weekly service"}) { id } }`, { c: customerId, s: at.toISOString(), e: end }));
    }
    // Another, with one visit: a draft left for "Finalize all drafts" (the demo's own last month is billed already).
    const second = ok(
      await gql(`mutation { createCustomer(input: {firstName: "Second", lastName: "Payer", readyForInvoice: true, service: {rate: 95}}) { id } }`),
    ).createCustomer.id;
    const at = month.days[0]!;
    ok(await gql(`mutation($c: ID!, $s: DateTime!, $e: DateTime!) { createService(input: {customerId: $c, startTime: $s, endTime: $e, notes: "Weekly service"}) { id } }`, { c: second, s: at.toISOString(), e: new Date(at.getTime() + 30 * 60_000).toISOString() }));
    // One the office has not marked ready: the run leaves it out, and says why.
    ok(await gql(`mutation { createCustomer(input: {firstName: "Nora", lastName: "Notready", readyForInvoice: false, service: {rate: 90}}) { id } }`));
    fs.mkdirSync(SHOTS, { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  }, 180_000);
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
    expect(pageErrors.splice(0)).toEqual([]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await store?.drop();
  });

  async function signedIn(token: string): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    context.setDefaultTimeout(45_000);
    contexts.push(context);
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    await page.goto(`${server.url}/app`);
    await page.getByLabel('API token', { exact: true }).fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Dispatch board' }).waitFor();
    return page;
  }
  const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `${engine}-billing-${name}.png`), fullPage: true });
  /** The customer's balance due as the server has it. */
  const balanceDue = async () =>
    ok(await caller(server, admin)(`query($id: ID) { infiniteCustomers(first: 1, selector: {filters: {id: {eq: $id}}}) { edges { node { balanceDue } } } }`, { id: customerId })).infiniteCustomers.edges[0].node.balanceDue as number;

  it('runs the month, shows the draft line by line, finalizes it, records a payment and the balance due drops', async () => {
    const page = await signedIn(office);
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Billing' }).click();
    await page.getByLabel('From', { exact: true }).fill(month.start);
    await page.getByLabel('To (included)', { exact: true }).fill(month.end);
    await page.getByRole('button', { name: 'Make the drafts' }).click();
    // Ended (its result file written after the last customer, a while on a loaded machine), at 100%.
    await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: 90_000 }).toMatch(/succeeded|partial/);
    expect(await page.getByTestId('run-progress').getAttribute('value')).toBe('100');
    // A customer left out is listed with the reason, never silently.
    await page.getByTestId('skipped').waitFor({ timeout: 15_000 }).catch(async (error: Error) => {
      throw new Error(`${error.message}\npage shows: ${(await page.locator('main').innerText()).slice(0, 1500)}`);
    });
    expect(await page.getByTestId('skipped').getByRole('row').filter({ hasText: 'Nora Notready' }).textContent()).toContain('not ready');

    // A draft opens into its lines, each saying where it comes from (the screenshot in the README).
    const first = page.locator('tr[data-draft]').first().getByRole('button');
    await first.click();
    await page.getByTestId('invoice-lines').waitFor();
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.setViewportSize({ width: 1400, height: 1150 });
    await page.screenshot({ path: README_SHOT });
    await first.click();

    // The draft of this test's customer: a line per visit, each saying which visit it bills.
    const draft = page.getByRole('row').filter({ has: page.getByRole('button', { name: 'Bill Payer' }) });
    await draft.getByRole('button', { name: 'Bill Payer' }).click();
    const lines = page.getByTestId('invoice-lines').locator('tbody tr[data-source="VISIT"]');
    await expect.poll(() => lines.count()).toBe(2);
    expect(await lines.first().textContent()).toContain('Visit of');
    expect(await lines.first().textContent()).toContain('120.00');
    await shot(page, 'drafts');

    await page.getByRole('checkbox', { name: 'Finalize the draft for Bill Payer' }).check();
    await page.getByRole('button', { name: 'Finalize selected (1)' }).click();
    const finalized = page.getByTestId('finalized');
    await expect.poll(() => finalized.textContent()).toMatch(/\S+\d/);
    // Sent: its email (with the PDF) queued in the outbox, to the customer's address.
    await finalized.getByRole('button', { name: /^Send / }).click();
    await expect.poll(() => finalized.textContent()).toContain('sent to the outbox');
    const outbox = ok(await caller(server, admin)(`{ outboxMessages(channel: EMAIL, first: 100) { edges { node { recipient subject } } } }`));
    expect(outbox.outboxMessages.edges.map((e: { node: { recipient: string } }) => e.node.recipient)).toContain('bill@customer.example');
    // Its page: the lines, and the PDF a click away.
    await finalized.getByRole('link').first().click();
    const pdf = await page.getByTestId('invoice-pdf').getAttribute('href');
    const download = await page.request.get(new URL(pdf!, server.url).toString());
    expect(download.headers()['content-type']).toContain('application/pdf');
    // A visit it bills is INVOICED, which billing keeps: the visit's page shows it, unchangeable.
    await page.getByRole('link', { name: /^Visit of/ }).first().click();
    const status = page.getByLabel('Billing status', { exact: true });
    await expect.poll(() => status.inputValue()).toBe('INVOICED');
    expect(await status.isDisabled()).toBe(true);
    await page.goBack();
    await page.goBack();
    const owed = await balanceDue();
    expect(owed).toBeGreaterThanOrEqual(240);

    // The invoice is among the unpaid ones, with its balance.
    await page.getByRole('navigation', { name: 'Billing' }).getByRole('link', { name: 'Unpaid & overdue' }).click();
    const row = page.getByRole('row').filter({ hasText: 'Bill Payer' });
    await expect.poll(() => row.getByTestId('balance-due').textContent()).toContain(owed.toFixed(2));
    // Not due yet: not among the overdue ones.
    await page.getByRole('button', { name: 'Overdue only' }).click();
    await expect.poll(() => row.count()).toBe(0);
    await page.getByRole('button', { name: 'All unpaid' }).click();
    await row.getByRole('link', { name: 'Record a payment' }).click();

    // A partial payment by check: the form says what it paid, and the balance drops by it.
    await expect.poll(() => page.getByTestId('customer-balance').textContent()).toContain(`Balance due $${owed.toFixed(2)}`);
    await page.getByLabel('Amount (USD)', { exact: true }).fill('100');
    await page.getByLabel('Method', { exact: true }).selectOption('CHECK');
    await page.getByLabel('Reference (check number, receipt…)', { exact: true }).fill('1042');
    await page.getByRole('button', { name: 'Record the payment' }).click();
    await expect.poll(() => page.getByTestId('payment-recorded').textContent()).toContain('Recorded $100.00');
    const left = (owed - 100).toFixed(2);
    await expect.poll(() => page.getByTestId('customer-balance').textContent()).toContain(`Balance due $${left}`);
    expect(await balanceDue()).toBeCloseTo(owed - 100, 2);
    await shot(page, 'payment');

    // A negative amount is refused by the server, and the form says why; nothing changes.
    await page.getByLabel('Amount (USD)', { exact: true }).evaluate((input: HTMLInputElement) => input.removeAttribute('min'));
    await page.getByLabel('Amount (USD)', { exact: true }).fill('-5');
    await page.getByRole('button', { name: 'Record the payment' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/amount/i);
    expect(await balanceDue()).toBeCloseTo(owed - 100, 2);

    // The statement ends on what is owed; the aging counts it.
    await page.goto(`${server.url}/app#/statement/${customerId}`);
    await expect.poll(() => page.getByTestId('statement-closing').textContent()).toContain(left);
    await shot(page, 'statement');
    await page.getByRole('navigation', { name: 'Billing' }).getByRole('link', { name: 'Aging' }).click();
    await expect.poll(() => page.getByTestId('aging').getByRole('row').filter({ hasText: 'Bill Payer' }).textContent()).toContain(left);
    await shot(page, 'aging');

    // The other drafts, all at once: numbered, and none left to review.
    await page.getByRole('navigation', { name: 'Billing' }).getByRole('link', { name: 'Run the month & drafts' }).click();
    await page.getByRole('button', { name: 'Finalize all drafts' }).click();
    await expect.poll(() => page.getByTestId('drafts-summary').textContent(), { timeout: 60_000 }).toBe('No drafts.');
    const numbers = await page.getByTestId('finalized').getByRole('link').allTextContents();
    expect(new Set(numbers).size).toBe(numbers.length);
    expect(numbers.length).toBeGreaterThan(0);
  });

  it("invoices an accepted quote from its page: a draft holding the quote's lines, each saying so", async () => {
    const gql = caller(server, admin);
    const quote = ok(await gql(`mutation($c: ID!) { createQuote(input: {customerId: $c, title: "New pump", lineItems: [{description: "Variable-speed pump", quantity: 1, unitPrice: 950}]}) { id } }`, { c: customerId })).createQuote.id;
    for (const status of ['SENT', 'ACCEPTED']) ok(await gql(`mutation($id: ID!, $s: QuoteStatus!) { updateQuote(id: $id, input: {status: $s}) { id } }`, { id: quote, s: status }));
    const page = await signedIn(office);
    await page.goto(`${server.url}/app#/quote/${quote}`);
    await page.getByRole('button', { name: 'Invoice it' }).click();
    await page.getByRole('heading', { name: 'Draft invoice' }).waitFor();
    const line = page.getByTestId('invoice-lines').locator('tbody tr[data-source="QUOTE_LINE"]');
    await expect.poll(() => line.textContent()).toContain('Line of an accepted quote');
    expect(await line.textContent()).toContain('Variable-speed pump');
    expect(await page.getByRole('button', { name: 'Finalize' }).count()).toBe(1);
  });

  it('names every control of the billing screens', async () => {
    const page = await signedIn(office);
    for (const screen of ['billing', 'invoices', 'aging', `statement/${customerId}`, `payment/${customerId}`]) {
      await page.goto(`${server.url}/app#/${screen}`);
      await page.locator('main h1').waitFor();
      await expect.poll(() => page.locator('main .loading').count(), { timeout: 30_000 }).toBe(0);
      const unlabelled = await page.evaluate(() =>
        Array.from(document.querySelectorAll('input, select, textarea, button'))
          .filter((el) => !(el as HTMLElement).innerText?.trim() && !el.getAttribute('aria-label') && !(el as HTMLInputElement).labels?.length)
          .map((el) => el.outerHTML.slice(0, 80)),
      );
      expect(unlabelled, screen).toEqual([]);
    }
  });
});
