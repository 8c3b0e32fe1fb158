import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { build } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleFiles } from './fixtures/files.js';
import { caller, ok, tokenFor } from './support/api.js';
import { openTestStore, type TestStore } from './support/engines.js';
import { newOrganization, startTestServer, type TestServer } from './support/server.js';
import { serverDocument } from './support/sync.js';

/**
 * A browser app served from another origin than the API (CORS_ORIGINS): it syncs, uploads a
 * photo and receives the live stream; a page from an origin not listed is refused by the browser.
 */
const CHROMIUM = '/usr/bin/chromium';
const runs = fs.existsSync(CHROMIUM) || Boolean(process.env.REQUIRE_CHROMIUM);

type SDK = typeof import('../client-sdk/index.js');
type Client = Awaited<ReturnType<SDK['createPoolClient']>>;
type AppWindow = Window & { PoolSDK: SDK; app: Client };

/** A static site on its own port (another origin): one page and the SDK bundle. */
async function startSite(bundle: string): Promise<{ url: string; close(): Promise<void> }> {
  const site = http.createServer((req, res) => {
    if (req.url === '/sdk.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Pool office</title><script src="/sdk.js"></script>');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const { port } = site.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => (site.closeAllConnections(), site.close(() => resolve()))),
  };
}

describe.runIf(runs)('a browser app on another origin', () => {
  let store: TestStore;
  let api: TestServer;
  let allowed: Awaited<ReturnType<typeof startSite>>;
  let unlisted: Awaited<ReturnType<typeof startSite>>;
  let browser: Browser;
  let office: string;
  let tech: string;
  let customerId: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const built = await build({ entryPoints: ['client-sdk/index.ts'], bundle: true, format: 'iife', globalName: 'PoolSDK', platform: 'browser', target: 'es2022', write: false, logLevel: 'silent' });
    const bundle = built.outputFiles[0]!.text;
    allowed = await startSite(bundle);
    unlisted = await startSite(bundle);
    store = await openTestStore('pglite');
    api = await startTestServer(store.db, { http: { corsOrigins: [allowed.url] } });
    office = (await newOrganization(store.db, 'Cross Origin Pools')).token;
    const technician = await tokenFor(api, office, 'TECHNICIAN');
    tech = technician.token;
    // The technician's customer: their phone holds it.
    customerId = ok(await caller(api, office)(`mutation($t: ID) { createCustomer(input: {lastName: "Origin", service: {technicianId: $t}}) { id } }`, { t: technician.apiToken.userId })).createCustomer.id;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await api?.close();
    await store?.drop();
    await allowed?.close();
    await unlisted?.close();
  });

  async function open(site: { url: string }): Promise<Page> {
    const page = await browser.newPage();
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    await page.goto(site.url);
    return page;
  }

  it('answers preflights for listed origins only, cached, and never with credentials', async () => {
    const preflight = (origin: string) =>
      fetch(`${api.url}/sync/services/push`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
      });
    const yes = await preflight(allowed.url);
    expect(yes.status).toBe(204);
    expect(yes.headers.get('access-control-allow-origin')).toBe(allowed.url);
    expect(yes.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    expect(yes.headers.get('access-control-max-age')).toBe('7200');
    expect(yes.headers.get('access-control-allow-credentials')).toBeNull();
    const no = await preflight(unlisted.url);
    expect(no.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('syncs, uploads a photo and follows the live stream from another origin', async () => {
    const page = await open(allowed);
    const photo = sampleFiles.jpeg(2048);
    const visitId = await page.evaluate(
      async ({ apiUrl, token, customerId, jpeg }) => {
        const w = window as unknown as AppWindow;
        const client = await w.PoolSDK.createPoolClient({ baseUrl: apiUrl, token, name: 'cross-origin', retryMs: 200 });
        w.app = client;
        client.sync.start();
        await client.sync.awaitInSync({ timeoutMs: 15_000 });
        const visit = await client.recordVisit({ customerId, notes: 'From another origin' });
        await client.addVisitPhoto(visit.id, new Blob([new Uint8Array(jpeg)], { type: 'image/jpeg' }), 'Pump');
        await client.sync.awaitInSync({ timeoutMs: 10_000 });
        return visit.id;
      },
      { apiUrl: api.url, token: tech, customerId, jpeg: [...photo] },
    );
    const onServer = await serverDocument(api, office, 'services', visitId);
    expect(onServer).toMatchObject({ notes: 'From another origin' });
    expect(onServer.photos).toHaveLength(1);
    expect(onServer.photos[0]).toMatchObject({ caption: 'Pump', size: photo.length });

    // The office renames the customer; the page's replica hears it over the cross-origin stream.
    ok(await caller(api, office)(`mutation($id: ID!) { updateCustomer(id: $id, input: {lastName: "Renamed"}) { id } }`, { id: customerId }));
    const seen = await page.evaluate(async (id) => {
      const client = (window as unknown as AppWindow).app;
      const name = await new Promise<string>((resolve) => {
        client.db.collections.customers!.findOne(id).$.subscribe((d) => {
          const doc = d?.toJSON() as { lastName?: string } | undefined;
          if (doc?.lastName === 'Renamed') resolve(doc.lastName);
        });
      });
      await client.close();
      return name;
    }, customerId);
    expect(seen).toBe('Renamed');
    expect(pageErrors).toEqual([]);
    await page.close();
  }, 60_000);

  it('a page from an origin not in CORS_ORIGINS cannot read the API', async () => {
    const page = await open(unlisted);
    const outcome = await page.evaluate(async ({ apiUrl, token }) => {
      try {
        await fetch(`${apiUrl}/sync/customers/pull`, { headers: { authorization: `Bearer ${token}` } });
        return 'read';
      } catch (error) {
        return (error as Error).name;
      }
    }, { apiUrl: api.url, token: tech });
    expect(outcome).toBe('TypeError');
    await page.close();
  });
});
