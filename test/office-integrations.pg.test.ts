import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { provisionOrganization } from '../server/operations/organization.js';
import { caller, ok } from './support/api.js';
import { engines, openTestStore, type TestStore } from './support/engines.js';
import { startTestServer, type TestServer } from './support/server.js';
import { startReceiver, verifies, type Receiver } from './support/webhook-receiver.js';

/**
 * The office app's Settings, Integrations, in Debian's Chromium at 1366x768: an ADMIN adds an
 * endpoint (its secret shown once, and it verifies what the receiver gets), sees its health and
 * deliveries, resends one, and sees an endpoint the server disabled called out. Screenshots go to
 * test-output/screenshots/.
 */
const CHROMIUM = '/usr/bin/chromium';
const runs = fs.existsSync(CHROMIUM) || Boolean(process.env.REQUIRE_CHROMIUM);
const SHOTS = path.join('test-output', 'screenshots');

describe.runIf(runs).each(engines.slice(-1))('office app integrations on %s', { timeout: 180_000 }, (engine) => {
  let store: TestStore;
  let server: TestServer;
  let receiver: Receiver;
  let browser: Browser;
  let admin: string;

  beforeAll(async () => {
    store = await openTestStore(engine);
    receiver = await startReceiver((r) => (r.path === '/gone' ? { status: 410 } : { status: 204 }));
    server = await startTestServer(store.db, {
      heartbeatMs: 300,
      http: { rateLimitPerMinute: 0 },
      webhooks: { allowHttp: true, allowPrivateAddresses: true, retrySchedule: [0.5], attemptTimeoutMs: 2_000 },
    });
    admin = (await provisionOrganization(store.db, { name: 'Integrated Pools' })).token;
    fs.mkdirSync(SHOTS, { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await receiver?.close();
    await store?.drop();
  });

  async function settings(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
    context.setDefaultTimeout(45_000);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    await page.goto(`${server.url}/app`);
    await page.getByLabel('API token', { exact: true }).fill(admin);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Dispatch board' }).waitFor();
    await page.getByRole('link', { name: 'Settings', exact: true }).click();
    await page.getByRole('heading', { name: 'Integrations' }).waitFor();
    page.on('close', () => expect(errors).toEqual([]));
    return page;
  }

  it('adds an endpoint, shows its secret once and its deliveries, resends one, and calls out a disabled endpoint', async () => {
    const page = await settings();
    await page.getByText('No webhook endpoints yet.').waitFor();
    const form = page.getByRole('form', { name: 'New webhook endpoint' });
    await form.getByLabel('Endpoint URL', { exact: true }).fill(`${receiver.url}/office`);
    await form.getByLabel('Description', { exact: true }).fill('Accounting sync');
    await form.getByLabel('visit.completed').check();
    await form.getByLabel('customer.created').check();
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = (await page.getByTestId('new-webhook-secret').textContent())!;
    expect(secret).toMatch(/^whsec_/);
    const row = page.locator('tr[data-endpoint]');
    await expect.poll(() => row.count()).toBe(1);
    await expect.poll(() => row.locator('td').nth(1).textContent()).toBe('visit.completed, customer.created');

    // A change elsewhere reaches the receiver, signed with the secret the app showed.
    const gql = caller(server, admin);
    ok(await gql(`mutation { createCustomer(input: {lastName: "Oyelaran"}) { id } }`));
    const [delivery] = await receiver.waitFor(1, (r) => r.path === '/office');
    expect(verifies(secret, delivery!)).toBe(true);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByRole('cell', { name: /^customer\.created/ }).waitFor();
    await expect.poll(() => page.getByRole('cell', { name: '204 OK' }).count()).toBe(1);
    await page.getByRole('button', { name: `Resend customer.created ${delivery!.id}` }).click();
    const [, again] = await receiver.waitFor(2, (r) => r.path === '/office');
    expect(again!.id).toBe(delivery!.id);

    // An endpoint that answers 410 is disabled by the server, and the page says so.
    ok(await gql(`mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { secret } }`, { input: { url: `${receiver.url}/gone` } }));
    ok(await gql(`mutation { createCustomer(input: {lastName: "Gone"}) { id } }`));
    await receiver.waitFor(1, (r) => r.path === '/gone');
    await expect.poll(async () => ok(await gql(`{ webhookEndpoints { enabled } }`)).webhookEndpoints.map((e: { enabled: boolean }) => e.enabled)).toEqual([true, false]);
    await page.reload();
    await page.getByRole('heading', { name: 'Integrations' }).waitFor();
    await page.getByRole('alert').filter({ hasText: `Deliveries to ${receiver.url}/gone stopped` }).waitFor();
    await expect.poll(() => page.getByTestId('webhook-health').allTextContents()).toEqual(['Healthy', expect.stringMatching(/^Disabled/)]);
    await page.getByRole('heading', { name: 'Integrations' }).scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SHOTS, `${engine}-settings-integrations.png`) });
    await page.getByRole('heading', { name: /Recent deliveries/ }).evaluate((h) => h.scrollIntoView({ block: 'start' }));
    await page.screenshot({ path: path.join(SHOTS, `${engine}-settings-integrations-deliveries.png`) });
    await page.close();
  });
});
