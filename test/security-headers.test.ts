import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDemoData } from '../server/demo-data.js';
import { provisionOrganization } from '../server/operations/organization.js';
import { sampleFiles, uploadFile } from './fixtures/files.js';
import { caller, ok } from './support/api.js';
import { ROOT, finished } from './support/child.js';
import { openTestStore, type TestStore } from './support/engines.js';
import { signInCodeFor } from './support/phones.js';
import { startTestServer, type TestServer } from './support/server.js';

/**
 * Security headers on every page (helmet): a Content-Security-Policy, no framing, no sniffing, no
 * referrer. The policy is strict (scripts from this server only, no inline script, no eval), so
 * each page is run in Chromium and any violation the browser reports fails the test: the first
 * screen, the docs, the GraphQL explorer running a query, the office app signed in with its QR
 * codes, and the technician app signed in by its link, its service worker and manifest loaded,
 * a photo taken and shown from the phone.
 */
const CHROMIUM = '/usr/bin/chromium';
const runs = fs.existsSync(CHROMIUM) || Boolean(process.env.REQUIRE_CHROMIUM);
const LAUNCH = { executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] };
const PAGES = ['/', '/docs', '/app', '/tech/', '/graphql'];
/** Screenshots of the pages under the policy, for a reviewer (git-ignored). */
const SHOTS = path.join('test-output', 'screenshots');

describe('security headers', () => {
  let store: TestStore;
  let server: TestServer;
  let admin: string;
  let orgId: string;

  beforeAll(async () => {
    // The explorer is built by `npm start`; the vitest setup builds the two apps only.
    const build = await finished(spawn('npm', ['run', '--silent', 'build:explorer'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] }));
    expect(build.code, build.stderr).toBe(0);
    store = await openTestStore('pglite');
    server = await startTestServer(store.db, { heartbeatMs: 300, http: { rateLimitPerMinute: 0 } });
    const demo = await provisionOrganization(store.db, { name: 'Header Pools' });
    admin = demo.token;
    orgId = demo.organization.id;
    await addDemoData({ db: store.db, blobs: server.blobs, viewer: { orgId, userId: demo.apiToken.userId, role: 'ADMIN', tokenId: demo.apiToken.id } });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await store?.drop();
  });

  it('every page carries a strict policy, no framing, no sniffing and no referrer', async () => {
    for (const path of PAGES) {
      const res = await fetch(`${server.url}${path}`, { headers: { accept: 'text/html' } });
      expect(res.status, path).toBe(200);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp, path).toContain("default-src 'self'");
      expect(csp, path).toContain("script-src 'self';");
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(csp, path).toContain("object-src 'none'");
      expect(csp, path).not.toContain('unsafe-eval');
      expect(csp, path).not.toContain('unsafe-inline');
      expect(res.headers.get('x-frame-options'), path).toBe('DENY');
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(res.headers.get('referrer-policy'), path).toBe('no-referrer');
      expect(res.headers.get('cross-origin-resource-policy'), path).toBe('same-origin');
    }
    // API answers carry them too.
    expect((await fetch(`${server.url}/healthz`)).headers.get('x-content-type-options')).toBe('nosniff');
  });

  it("a signed file link may be shown by another origin's page, and is never sniffed", async () => {
    const visit = ok(await caller(server, admin)(`mutation { createService(input: {notes: "headers"}) { id } }`)).createService.id;
    const photo = await uploadFile(`${server.url}/services/${visit}/photos`, admin, sampleFiles.jpeg());
    const res = await fetch(photo.body.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toBeNull();
  });

  describe.runIf(runs)('in Chromium, nothing the pages do is refused by the policy', { timeout: 120_000 }, () => {
    let browser: Browser;
    const problems: string[] = [];
    beforeAll(async () => {
      browser = await chromium.launch(LAUNCH);
      fs.mkdirSync(SHOTS, { recursive: true });
    });
    afterAll(async () => {
      await browser?.close();
    });

    /**
     * A page that records every policy violation (the browser's own report, and its console line
     * "Refused to ... because it violates the following Content Security Policy directive") and
     * every uncaught error. Other console errors are not the policy's (a 401 before a token is
     * pasted, a missing favicon).
     */
    async function watched(page: Page): Promise<Page> {
      await page.addInitScript(() => {
        document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || '(inline)'} at ${e.sourceFile}:${e.lineNumber}`));
      });
      page.on('console', (message) => {
        if (/CSP violation|Content Security Policy/.test(message.text())) problems.push(`${page.url()}: ${message.text()}`);
      });
      page.on('pageerror', (error) => problems.push(`${page.url()}: ${String(error)}`));
      return page;
    }

    it('the first screen and the docs', async () => {
      const page = await watched(await browser.newPage({ viewport: { width: 1366, height: 768 } }));
      await page.goto(`${server.url}/`);
      await page.getByRole('heading', { name: /Pool service API/ }).waitFor();
      // The page's own style block applies (allowed by its hash).
      expect(await page.evaluate(() => getComputedStyle(document.body).fontFamily)).toContain('system-ui');
      await page.screenshot({ path: path.join(SHOTS, 'csp-first-screen.png') });
      await page.goto(`${server.url}/docs`);
      await page.getByRole('heading', { name: 'Configuration', exact: true }).waitFor();
      await page.close();
      expect(problems.splice(0)).toEqual([]);
    });

    it('the GraphQL explorer runs a query', async () => {
      const page = await watched(await browser.newPage({ viewport: { width: 1366, height: 768 } }));
      await page.goto(`${server.url}/graphql`);
      await page.getByLabel('API token').fill(admin);
      await page.locator('.graphiql-execute-button').click();
      await expect.poll(() => page.locator('.result-window').innerText(), { timeout: 20_000 }).toContain('Header Pools');
      await page.screenshot({ path: path.join(SHOTS, 'csp-explorer.png') });
      await page.close();
      expect(problems.splice(0)).toEqual([]);
    });

    it('the office app signs in, syncs, and shows a phone sign-in QR code', async () => {
      const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
      const page = await watched(await context.newPage());
      await page.goto(`${server.url}/app`);
      await page.getByLabel('API token', { exact: true }).fill(admin);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Dispatch board' }).waitFor({ timeout: 45_000 });
      await expect.poll(() => page.getByTestId('last-synced').textContent(), { timeout: 45_000 }).not.toContain('never');
      await page.goto(`${server.url}/app#/settings`);
      await page.getByRole('button', { name: "Sign in Sam Carter's phone" }).click();
      const qr = page.getByRole('img', { name: "QR code that signs Sam Carter's phone in to the technician app" });
      expect(await qr.evaluate((img: HTMLImageElement) => img.decode().then(() => img.naturalWidth))).toBeGreaterThan(100);
      await context.close();
      expect(problems.splice(0)).toEqual([]);
    });

    it('the technician app signs in by its link, installs its service worker, and shows a photo taken offline, then uploaded', async () => {
      const { users } = ok(await caller(server, admin)('{ users(role: TECHNICIAN) { id name } }'));
      const sam = users.find((u: { name: string }) => u.name === 'Sam Carter').id;
      const { link } = await signInCodeFor(server, admin, sam);
      const visit = ok(await caller(server, admin)('mutation($t: ID, $at: DateTime) { createService(input: {newTechnicianId: $t, startTime: $at, notes: "Photo here"}) { id } }', { t: sam, at: new Date(Date.now() + 3_600_000).toISOString() })).createService.id;
      const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
      const page = await watched(await context.newPage());
      await page.goto(link);
      await page.getByRole('heading', { name: /^Today, / }).waitFor({ timeout: 45_000 });
      expect(await page.evaluate(() => navigator.serviceWorker.ready.then((r) => r.active?.scriptURL))).toBe(`${server.url}/tech/sw.js`);
      expect(await page.evaluate(() => fetch(document.querySelector<HTMLLinkElement>('link[rel=manifest]')!.href).then((r) => r.status))).toBe(200);
      await page.goto(`${server.url}/tech/#/visit/${visit}`);
      await page.getByText('Photo here').first().waitFor();
      // Taken without signal: shown from the phone's queue (a data: URL), then from its signed link once uploaded.
      await context.setOffline(true);
      await page.locator('input[type=file]').setInputFiles({ name: 'pool.png', mimeType: 'image/png', buffer: sampleFiles.png(4096) });
      const shown = page.locator('.photos li img').first();
      await expect.poll(() => shown.getAttribute('src'), { timeout: 20_000 }).toMatch(/^data:image\//);
      expect(await shown.evaluate((img: HTMLImageElement) => img.decode().then(() => img.naturalWidth))).toBeGreaterThan(0);
      await context.setOffline(false);
      await expect.poll(() => shown.getAttribute('src'), { timeout: 30_000 }).toMatch(/\/files\//);
      expect(await shown.evaluate((img: HTMLImageElement) => img.decode().then(() => img.naturalWidth))).toBeGreaterThan(0);
      await context.close();
      expect(problems.splice(0)).toEqual([]);
    });
  });
});
