import fs from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { provisionOrganization } from '../server/operations/organization.js';
import { caller, ok, tokenFor } from './support/api.js';
import { openTestStore, type TestStore } from './support/engines.js';
import { signInCodeFor } from './support/phones.js';
import { startFaultProxy, type FaultProxy } from './support/fault-proxy.js';
import { startTestServer, type TestServer } from './support/server.js';

/**
 * What a device keeps, told to the person (technician app, Debian's Chromium, phone viewport): a
 * browser that refuses persistent storage, a photo the device has no room for, and work that has
 * waited for the server longer than the app's setting.
 */
const CHROMIUM = '/usr/bin/chromium';
const runs = fs.existsSync(CHROMIUM) || Boolean(process.env.REQUIRE_CHROMIUM);
const LAUNCH = { executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] };
const PHONE = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 };

describe.runIf(runs)('device storage in the technician app', { timeout: 120_000 }, () => {
  let store: TestStore;
  let server: TestServer;
  let proxy: FaultProxy;
  let browser: Browser;
  let admin: string;
  let technicianId: string;
  let visitId: string;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    store = await openTestStore('pglite');
    server = await startTestServer(store.db, { heartbeatMs: 300, http: { rateLimitPerMinute: 0 } });
    ({ token: admin } = await provisionOrganization(store.db, { name: 'Storage Pools' }));
    const technician = await tokenFor(server, admin, 'TECHNICIAN');
    technicianId = technician.apiToken.userId;
    const api = caller(server, admin);
    const customerId = ok(await api('mutation { createCustomer(input: {lastName: "Full", firstName: "Phil"}) { id } }')).createCustomer.id;
    const start = new Date(Date.now() + 60_000).toISOString();
    visitId = ok(await api('mutation($c: ID, $t: ID, $at: DateTime) { createService(input: {customerId: $c, newTechnicianId: $t, startTime: $at}) { id } }', {
      c: customerId,
      t: technician.apiToken.userId,
      at: start,
    })).createService.id;
    proxy = await startFaultProxy(server.url);
    browser = await chromium.launch(LAUNCH);
  }, 120_000);
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await proxy?.close();
    await server?.close();
    await store?.drop();
  });

  /** A new phone (its own empty storage) signed in through the office's QR link, on today's route. */
  async function signedInPhone(init?: () => void): Promise<Page> {
    const context = await browser.newContext(PHONE);
    contexts.push(context);
    if (init) await context.addInitScript(init);
    const page = await context.newPage();
    const { code } = await signInCodeFor(server, admin, technicianId);
    await page.goto(`${proxy.url}/tech/#code=${code}`);
    await page.getByRole('heading', { name: /^Today, / }).waitFor({ timeout: 60_000 });
    await page.locator(`.route a[data-visit-id="${visitId}"]`).waitFor({ timeout: 60_000 });
    return page;
  }

  it('shows a notice when the browser refuses persistent storage, and none when it grants it', async () => {
    // Chromium decides persist() by the site's engagement; the test makes it refuse (or grant) by
    // replacing navigator.storage.persist/persisted before the app's scripts run.
    const refused = await signedInPhone(() => {
      navigator.storage.persisted = () => Promise.resolve(false);
      navigator.storage.persist = () => Promise.resolve(false);
    });
    await refused.locator('.storage-refused').waitFor();
    expect(await refused.locator('.storage-refused').textContent()).toMatch(/may delete the work kept on this device/);

    const granted = await signedInPhone(() => {
      navigator.storage.persisted = () => Promise.resolve(false);
      navigator.storage.persist = () => Promise.resolve(true);
    });
    await granted.getByRole('link', { name: 'Sync' }).click();
    await granted.getByText(/^Last synced: (?!not yet)/).waitFor({ timeout: 60_000 });
    expect(await granted.locator('.storage-refused').count()).toBe(0);
  });

  it('tells the technician a photo was not saved when the device has no room for it', async () => {
    // A full phone, simulated where the browser reports it: once `__storageFull` is set, every
    // IndexedDB put and add throws QuotaExceededError, as IndexedDB does when the site's quota is
    // used up. (Chromium's own quota override, CDP Storage.overrideQuotaForOrigin, was tried: it
    // refuses writes only when set before the site's first write, and then the sign-in's writes too.)
    const page = await signedInPhone(() => {
      for (const method of ['put', 'add'] as const) {
        const write = IDBObjectStore.prototype[method];
        IDBObjectStore.prototype[method] = function (this: IDBObjectStore, ...args: Parameters<typeof write>) {
          if ((globalThis as { __storageFull?: boolean }).__storageFull) throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
          return write.apply(this, args);
        };
      }
    });
    await page.locator(`.route a[data-visit-id="${visitId}"]`).click();
    await page.getByRole('heading', { name: 'Photos' }).waitFor();
    await page.evaluate(() => ((globalThis as { __storageFull?: boolean }).__storageFull = true));
    await page.locator('input[type=file]').setInputFiles([await noisyPhoto(page)]);
    const notice = page.locator('.storage-full');
    await notice.waitFor({ timeout: 30_000 });
    expect(await notice.textContent()).toMatch(/out of storage space: your last change was not saved/);
    // The notice may come from a background write (sync's own records) while the photo is still
    // being scaled: room is given back only once adding it is over (on a loaded machine, lifting
    // the flag earlier let that photo be stored after all).
    await page.getByText('Take or add photos').waitFor({ timeout: 30_000 });
    // No photo shows as kept; once there is room again, the next one is.
    expect(await page.locator('.photos li').count()).toBe(0);
    await page.evaluate(() => ((globalThis as { __storageFull?: boolean }).__storageFull = false));
    await notice.getByRole('button', { name: 'OK' }).click();
    await page.locator('input[type=file]').setInputFiles([await noisyPhoto(page)]);
    await expect.poll(() => page.locator('.photos li').count(), { timeout: 20_000 }).toBe(1);
    expect(await notice.count()).toBe(0);
  });

  it('shows work waiting for the server longer than the setting as at risk', async () => {
    // The setting (hours) made tiny: 0.001 h is 3.6 s.
    const page = await signedInPhone(() => localStorage.setItem('pool-tech-unsynced-risk-hours', '0.001'));
    await page.getByRole('link', { name: 'Sync' }).click();
    await page.getByText(/^Last synced: (?!not yet)/).waitFor({ timeout: 60_000 });
    expect(await page.locator('.unsynced-risk').count()).toBe(0);
    proxy.setMode('black-hole');
    try {
      await page.getByRole('link', { name: 'Today' }).click();
      await page.locator(`.route a[data-visit-id="${visitId}"]`).click();
      await page.getByLabel('pH', { exact: true }).fill('7.4');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByText('Saved on this phone.').waitFor();
      const risk = page.locator('.unsynced-risk');
      await risk.waitFor({ timeout: 45_000 });
      expect(await risk.textContent()).toMatch(/has not reached the server since/);
    } finally {
      proxy.setMode('pass');
    }
    // Once the work reaches the server, the notice goes.
    await page.locator('.unsynced-risk').waitFor({ state: 'detached', timeout: 60_000 });
  });
});

/** A photo as a camera makes one: noise, so that it stays large once scaled down and compressed. */
async function noisyPhoto(page: Page) {
  const png = await page.evaluate(() => {
    const canvas = document.createElement('canvas');
    canvas.width = 1600;
    canvas.height = 1200;
    const g = canvas.getContext('2d')!;
    const image = g.createImageData(canvas.width, canvas.height);
    for (let i = 0; i < image.data.length; i++) image.data[i] = (i * 2654435761) % 251;
    g.putImageData(image, 0, 0);
    return canvas.toDataURL('image/png').split(',')[1]!;
  });
  return { name: 'skimmer.png', mimeType: 'image/png', buffer: Buffer.from(png, 'base64') };
}
