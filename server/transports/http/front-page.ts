import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Router, type Request, type Response } from 'express';
import { builtBundle, immutableFiles } from './bundles.js';
import { DocsSite } from './docs-pages.js';

/**
 * What a person (or a curious client) finds at the server's root:
 *   GET /         a small page: what this is, its version, where to go next (JSON for clients)
 *   GET /graphql  from a browser, the GraphQL explorer (GraphiQL, bundled at `npm start`)
 *   GET /docs/    the README, rendered, and the documents it links to (docs-pages.ts)
 * Everything is served from this process; nothing comes from a CDN.
 */
export const PROJECT_ROOT = findProjectRoot(path.dirname(fileURLToPath(import.meta.url)));
const EXPLORER_DIR = path.join(PROJECT_ROOT, 'server', 'dist', 'explorer');
const NAME = 'Pool service API';
const explorerBundle = builtBundle(EXPLORER_DIR, 'explorer');

export function frontPageRoutes(): Router {
  const router = Router();
  const version = readVersion();
  router.get('/', (req, res) => {
    if (!wantsHtml(req)) {
      return void res.json({ name: NAME, version, graphql: '/graphql', docs: '/docs', health: '/healthz', metrics: '/metrics' });
    }
    sendHtml(res, 'Pool service API', homePage(version));
  });
  const docs = new DocsSite(PROJECT_ROOT);
  // At /docs/ (with the slash) the documents' relative links resolve as in the repository.
  router.get('/docs', (req, res, next) => (req.path === '/docs' ? res.redirect(301, '/docs/') : next()));
  router.get('/docs/{*path}', (req, res) => {
    const wanted = ([] as string[]).concat((req.params as { path?: string | string[] }).path ?? []).join('/');
    const file = docs.fileAt(wanted);
    if (!file) return void res.status(404).type('text').send('No such document');
    if (!file.endsWith('.md')) return void res.set('cache-control', 'no-cache').sendFile(file);
    sendHtml(res, 'Pool service API: documentation', `<main class="docs">${docs.page(file)}</main>`);
  });
  router.get('/graphql', (req, res, next) => {
    // GraphQL over GET (a `query` parameter, or a client asking for JSON) is the API's own.
    if (!wantsHtml(req) || req.query.query !== undefined) return next();
    sendHtml(res, 'GraphQL explorer', explorerPage(), 'explorer-page');
  });
  // Bundles are named by their content hash: cached for a year, replaced by a new name on change.
  router.use('/explorer', immutableFiles(EXPLORER_DIR));
  return router;
}

/** A browser navigating here asks for HTML first; fetch() and curl do not. */
function wantsHtml(req: Request): boolean {
  return req.accepts(['application/json', 'application/graphql-response+json', 'text/html']) === 'text/html';
}

function homePage(version: string): string {
  return `<main>
  <h1>Pool service API <small>${escapeHtml(version)}</small></h1>
  <p>The offline-first backend for pool-service businesses: technicians' devices sync visits,
  readings, photos and stock use through it; the office and third parties use its GraphQL and REST API.</p>
  <ul>
    <li><a href="/app">Office app</a>: the dispatch board, customers, quotes, inventory and settings (sign in with a token).</li>
    <li><a href="/graphql">GraphQL explorer</a>: paste an API token and run queries against <code>POST /graphql</code>.</li>
    <li><a href="/docs/">Documentation</a>: configuration, the sync protocol, REST endpoints, operations.</li>
    <li><a href="/healthz"><code>/healthz</code></a> and <a href="/readyz"><code>/readyz</code></a>: liveness and readiness.</li>
    <li><code>/metrics</code>: Prometheus metrics (a token may be required).</li>
  </ul>
  <p>The demo organization's ADMIN token was printed when the server first started.</p>
</main>`;
}

function explorerPage(): string {
  const bundle = explorerBundle();
  if (!bundle) {
    return `<main><h1>GraphQL explorer</h1><p>The explorer is not built. Run <code>npm run build:explorer</code>
      (<code>npm start</code> does it), then reload. The API itself answers <code>POST /graphql</code> meanwhile.</p></main>`;
  }
  return `<link rel="stylesheet" href="/explorer/${bundle.css}"><div id="explorer"></div><script type="module" src="/explorer/${bundle.js}"></script>`;
}

function sendHtml(res: Response, title: string, body: string, bodyClass = ''): void {
  res
    .type('html')
    .set('cache-control', 'no-cache')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body class="${bodyClass}">${body}</body></html>`,
    );
}

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;margin:0;color:#1b1f24;background:#fff}
main{max-width:52rem;margin:2rem auto;padding:0 1rem}h1 small{font-size:.5em;color:#4b5563}
a{color:#0b5cad}code{background:#f3f4f6;padding:0 .2em;border-radius:3px}
.docs table{border-collapse:collapse}.docs td,.docs th{border:1px solid #d1d5db;padding:.2em .5em;vertical-align:top}
.docs pre{background:#f3f4f6;padding:.75em;overflow:auto}
.explorer-page{height:100vh}.explorer{display:flex;flex-direction:column;height:100vh}
.token-bar{display:flex;gap:.5rem;align-items:center;padding:.4rem .75rem;border-bottom:1px solid #d1d5db}
.token-bar input{flex:1;font:inherit;padding:.2rem .4rem}.explorer .graphiql-container{flex:1}`;

/** The one inline style block these pages carry, allowed by its hash in the Content-Security-Policy. */
export const PAGE_STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function readVersion(): string {
  try {
    return (JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** The folder holding package.json: the same from source (tests) and from server/dist (npm start). */
function findProjectRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) return from;
  }
}
