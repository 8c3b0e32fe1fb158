import fs from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { provisionOrganization } from '../server/operations/organization.js';
import { caller, ok, tokenFor } from './support/api.js';
import { openInvoice, storedInvoice } from './support/billing-fixtures.payments.js';
import { openTestStore, type TestStore } from './support/engines.js';
import { startFaultProxy, type FaultProxy } from './support/fault-proxy.js';
import { signInCodeFor } from './support/phones.js';
import { startTestServer, type TestServer } from './support/server.js';
import { pullAll } from './support/sync.js';

/**
 * "Take payment" in the technician app (client-sdk/technician-app/), in Debian's Chromium at a
 * phone's viewport: a customer with two open invoices, a check taken at the door with the server
 * gone (a proxy in front of it black-holes every connection: the page loses the server, not only
 * the browser's offline flag), shown as waiting across a reload, then synced once when the server
 * is back. Screenshots go to test-output/screenshots/ (git-ignored).
 */
const CHROMIUM = '/usr/bin/chromium';
const runs = fs.existsSync(CHROMIUM) || Boolean(process.env.REQUIRE_CHROMIUM);
const SHOTS = path.join('test-output', 'screenshots');
const LAUNCH = { executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] };
const PHONE = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 };

describe.runIf(runs)('technician app: taking a payment at the door', { timeout: 120_000 }, () => {
  let store: TestStore;
  let server: TestServer;
  let proxy: FaultProxy;
  let browser: Browser;
  let phone: BrowserContext | null = null;
  let profile: string;
  let admin: string;
  let orgId: string;
  let technicianId: string;
  let customerId: string;
  const invoices = { older: '', later: '' };
  const pageErrors: string[] = [];

  beforeAll(async () => {
    store = await openTestStore('pglite');
    server = await startTestServer(store.db, { heartbeatMs: 300, worker: {}, http: { rateLimitPerMinute: 0 } });
    const org = await provisionOrganization(store.db, { name: 'Door Pools' });
    admin = org.token;
    orgId = org.organization.id;
    technicianId = (await tokenFor(server, admin, 'TECHNICIAN')).apiToken.userId;
    customerId = ok(await caller(server, admin)('mutation($t: ID) { createCustomer(input: {firstName: "Rita", lastName: "Alvarez", service: {technicianId: $t}}) { id } }', { t: technicianId })).createCustomer.id;
    invoices.older = (await openInvoice(store.db, orgId, { customerId, total: 100, issueDate: '2026-09-01', dueDate: '2026-09-30' })).id;
    invoices.later = (await openInvoice(store.db, orgId, { customerId, total: 80.5, issueDate: '2026-10-01', dueDate: '2026-10-31' })).id;
    proxy = await startFaultProxy(server.url);
    profile = await mkdtemp(path.join(tmpdir(), 'tech-pay-profile-'));
    fs.mkdirSync(SHOTS, { recursive: true });
    browser = await chromium.launch(LAUNCH);
  }, 120_000);
  afterAll(async () => {
    await phone?.close();
    await browser?.close();
    await proxy?.close();
    await server?.close();
    await store?.drop();
    if (profile) await rm(profile, { recursive: true, force: true });
  });

  async function openPhone(): Promise<Page> {
    phone = await chromium.launchPersistentContext(profile, { ...LAUNCH, ...PHONE });
    phone.setDefaultTimeout(30_000);
    const page = phone.pages()[0] ?? (await phone.newPage());
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    return page;
  }
  const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `tech-${name}.png`), fullPage: true });
  const serverPayments = async () => (await pullAll(server, admin, 'payments')).documents.filter((d: any) => d.customerId === customerId);
  const balanceDue = (page: Page) => page.getByTestId('balance-due').textContent();

  it('shows the balance due, takes a check offline as waiting (across a reload), and syncs it once', async () => {
    const page = await openPhone();
    const { code } = await signInCodeFor(server, admin, technicianId);
    await page.goto(`${proxy.url}/tech/#code=${code}`);
    await page.getByRole('heading', { name: /^Today, / }).waitFor();
    await page.goto(`${proxy.url}/tech/#/customer/${encodeURIComponent(customerId)}`);
    await page.getByRole('heading', { name: 'Rita Alvarez' }).waitFor();
    await expect.poll(() => balanceDue(page), { timeout: 30_000 }).toBe('$180.50');
    expect(await page.getByTestId('balance').textContent()).toMatch(/Invoice TEST-\d+, due .*: \$100\.00/);

    // The server goes away; a check is taken at the door.
    proxy.setMode('black-hole');
    await page.getByLabel('Method').selectOption('CHECK');
    await page.getByLabel('Amount (USD)').fill('130');
    await page.getByLabel('Check number').fill('2207');
    await page.getByRole('button', { name: 'Take payment' }).click();
    await page.getByText('Took $130.00 by check. Saved on this phone; it syncs when there is signal.').waitFor();
    await expect.poll(() => balanceDue(page)).toBe('$50.50');
    expect(await page.getByTestId('balance').textContent()).toContain('$180.50 as last synced, less $130.00 taken on this phone and not yet synced.');
    expect(await page.getByTestId('payments').textContent()).toMatch(/\$130\.00 check #2207, .*: waiting to sync/);
    // An amount finer than a cent is refused on the phone, nothing kept.
    await page.getByLabel('Method').selectOption('CASH');
    await page.getByLabel('Amount (USD)').evaluate((input: HTMLInputElement) => {
      input.step = 'any';
    });
    await page.getByLabel('Amount (USD)').fill('5.555');
    await page.getByRole('button', { name: 'Take payment' }).click();
    await page.getByRole('alert').filter({ hasText: 'more decimals than USD has' }).waitFor();
    expect(await page.locator('[data-testid=payments] li').count()).toBe(1);

    // Reloaded without a network: still there, still waiting.
    await page.reload();
    await expect.poll(() => balanceDue(page), { timeout: 30_000 }).toBe('$50.50');
    await expect.poll(() => page.getByTestId('payments').textContent()).toMatch(/waiting to sync/);
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot(page, 'payment-offline');
    expect(await serverPayments()).toEqual([]);

    // The server back: the payment goes up once, the older invoice is paid and leaves the phone.
    proxy.setMode('pass');
    await expect.poll(() => page.getByTestId('payments').textContent(), { timeout: 20_000 }).toMatch(/check #2207, .*: synced/);
    await expect.poll(() => page.locator('.owed .invoices li').count(), { timeout: 20_000 }).toBe(1);
    expect(await balanceDue(page)).toBe('$50.50');
    expect(await page.getByTestId('balance').textContent()).not.toContain('not yet synced');
    const payments = await serverPayments();
    expect(payments.map((p: any) => [p.amount, p.method, p.reference, p.createdById])).toEqual([[130, 'CHECK', '2207', technicianId]]);
    expect(await storedInvoice(store.db, orgId, invoices.older)).toMatchObject({ status: 'PAID', balanceDue: 0 });
    expect(await storedInvoice(store.db, orgId, invoices.later)).toMatchObject({ status: 'OPEN', balanceDue: 50.5 });
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot(page, 'payment-synced');
    expect(pageErrors).toEqual([]);
  });
});
