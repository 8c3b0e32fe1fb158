import path from 'node:path';
import { Router } from 'express';
import { builtBundle, immutableFiles, type Bundle } from './bundles.js';
import { PROJECT_ROOT } from './front-page.js';

/**
 * The office web app (client-sdk/office-app/), bundled by esbuild at `npm start` into
 * server/dist/app: GET /app is its page (never cached, so a new build is picked up at once), and
 * /app/assets its content-hashed files (cached for a year). Screens live in the URL's hash, so
 * this one page serves them all. GET /app/build names the build served (its script's hashed
 * name): an office app open in a tab all day asks it now and then, and reloads at a safe moment
 * when it is not its own (client-sdk/office-app/app-update.ts).
 */
const APP_DIR = path.join(PROJECT_ROOT, 'server', 'dist', 'app');

export function officeAppRoutes(dir = APP_DIR): Router {
  const router = Router();
  const appBundle = builtBundle(dir, 'main');
  router.get('/app', (_req, res) => {
    res.type('html').set('cache-control', 'no-cache').send(page(appBundle()));
  });
  router.get('/app/build', (_req, res) => {
    res.set('cache-control', 'no-store').json({ build: appBundle()?.js ?? null });
  });
  router.use('/app/assets', immutableFiles(dir));
  return router;
}

function page(bundle: Bundle | null): string {
  const body = bundle
    ? `<div id="app"></div><script type="module" src="/app/assets/${bundle.js}"></script>`
    : `<main style="font:16px system-ui;margin:2rem"><h1>Office app</h1><p>The office app is not built. Run <code>npm run build:app</code>
      (<code>npm start</code> does it), then reload.</p></main>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pool service office</title><link rel="icon" href="data:,">${bundle ? `<link rel="stylesheet" href="/app/assets/${bundle.css}">` : ''}</head><body>${body}</body></html>`;
}
