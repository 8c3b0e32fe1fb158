import fs from 'node:fs';
import { spawn } from 'node:child_process';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore } from './support/engines.js';
import { ROOT, finished } from './support/child.js';
import { newOrganization, startTestServer, type TestServer } from './support/server.js';

/** What a person sees who opens the server in a browser: the first screen, the docs, the explorer. */
const CHROMIUM = '/usr/bin/chromium';
const runs = fs.existsSync(CHROMIUM) || Boolean(process.env.REQUIRE_CHROMIUM);
const version = (JSON.parse(fs.readFileSync(`${ROOT}/package.json`, 'utf8')) as { version: string }).version;

describe('the first screen', () => {
  let store: TestStore;
  let server: TestServer;
  let token: string;

  beforeAll(async () => {
    // `npm start` builds the explorer; so does this test, from a clean checkout too.
    const build = await finished(spawn('npm', ['run', '--silent', 'build:explorer'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] }));
    expect(build.code, build.stderr).toBe(0);
    store = await openTestStore('pglite');
    server = await startTestServer(store.db);
    token = (await newOrganization(store.db, 'Front Page Pools')).token;
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await store?.drop();
  });

  it('GET / shows a browser what this server is, its version and where to go; a client gets JSON', async () => {
    const page = await fetch(`${server.url}/`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain('Pool service API');
    expect(html).toContain(version);
    expect(html).toContain('href="/graphql"');
    expect(html).toContain('href="/docs/"');
    const json = await fetch(`${server.url}/`);
    expect(await json.json()).toMatchObject({ name: 'Pool service API', version, graphql: '/graphql', docs: '/docs' });
  });

  it('GET /docs renders the README, at /docs/ so its relative links work, headings named as its links name them', async () => {
    const moved = await fetch(`${server.url}/docs`, { redirect: 'manual' });
    expect(moved.status).toBe(301);
    expect(moved.headers.get('location')).toBe('/docs/');
    const html = await (await fetch(`${server.url}/docs`)).text();
    expect(html).toMatch(/<h2 id="configuration">Configuration<\/h2>/);
    expect(html).toContain('<table>');
    expect(html).toContain('href="server/README.md#configuration"');
    expect(html).toContain('id="a-changes-path"');
  });

  it('the documents the README links to are served under their own paths, and nothing else of the project', async () => {
    const serverDocs = await fetch(`${server.url}/docs/server/README.md`);
    expect(serverDocs.status).toBe(200);
    const html = await serverDocs.text();
    expect(html).toContain('id="retrying-writes-idempotency-key"');
    expect(html).toContain('href="#limits"');
    // A document two links away, and a picture one of them shows.
    expect((await fetch(`${server.url}/docs/server/operations/sync/README.md`)).status).toBe(200);
    const picture = await fetch(`${server.url}/docs/client-sdk/office-app/screenshot.png`);
    expect(picture.status).toBe(200);
    expect(picture.headers.get('content-type')).toBe('image/png');
    for (const other of ['package.json', 'server/config.ts', 'server/../package.json', '..%2Fpackage.json', 'node_modules/marked/README.md', 'data/server.lock']) {
      expect((await fetch(`${server.url}/docs/${other}`)).status, other).toBe(404);
    }
  });

  it('GraphQL clients are unaffected: a GET query is still answered as GraphQL', async () => {
    const res = await fetch(`${server.url}/graphql?query=${encodeURIComponent('{ viewer { role } }')}`, { headers: { authorization: `Bearer ${token}`, accept: 'text/html, application/json' } });
    expect(await res.json()).toEqual({ data: { viewer: { role: 'ADMIN' } } });
  });

  describe.runIf(runs)('in Chromium', () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
    });
    afterAll(async () => {
      await browser?.close();
    });

    it('the explorer at /graphql runs a query with a pasted token, from bundled files only', async () => {
      const page = await browser.newPage();
      const foreign: string[] = [];
      page.on('request', (request) => {
        if (!request.url().startsWith(server.url)) foreign.push(request.url());
      });
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(String(error)));
      await page.goto(`${server.url}/graphql`);
      await page.getByLabel('API token').fill(token);
      await page.locator('.graphiql-execute-button').click();
      await expect.poll(async () => page.locator('.result-window').innerText(), { timeout: 10_000 }).toContain('Front Page Pools');
      expect(foreign).toEqual([]);
      expect(errors).toEqual([]);
      await page.close();
    }, 60_000);
  });
});
