import path from 'node:path';
import express, { Router } from 'express';
import { builtBundle, immutableFiles, type Bundle } from './bundles.js';
import { PROJECT_ROOT } from './front-page.js';

/**
 * The technician app (client-sdk/technician-app/), an installable web app for phones, bundled at
 * `npm start` into server/dist/tech (server/build-technician-app.ts):
 *   GET /tech/                       its page (never cached by HTTP: the service worker holds it)
 *   GET /tech/assets/<hashed name>   its script and styles, cached for a year
 *   GET /tech/sw.js                  the service worker (Workbox precaching of all of the above)
 *   GET /tech/manifest.webmanifest   the web app manifest; /tech/icons/* its icons
 * The page lives at /tech/ (with the slash) so the service worker's scope, /tech/, holds it; /tech
 * redirects there. A QR code from the office signs a phone in: /tech/#code=<one-time code>
 * (`technicianAppSignInLink`), which the app trades for a token of its own (POST /phone-sign-in).
 */
export const TECH_DIR = path.join(PROJECT_ROOT, 'server', 'dist', 'tech');
const APP_SOURCE = path.join(PROJECT_ROOT, 'client-sdk', 'technician-app');

/** Where a build's service worker goes: the folder beside its bundle (the bundle's folder holds only what esbuild built). */
export const serviceWorkerDir = (bundleDir: string) => `${bundleDir}-sw`;

export function technicianAppRoutes(dir = TECH_DIR): Router {
  const router = Router();
  const techBundle = builtBundle(dir, 'main');
  const swDir = serviceWorkerDir(dir);
  // Express matches /tech and /tech/ alike (routing is not strict): the path tells them apart.
  router.get('/tech/', (req, res) => {
    if (!req.originalUrl.split('?')[0]!.endsWith('/')) return res.redirect(301, `/tech/${req.originalUrl.slice('/tech'.length)}`);
    res.type('html').set('cache-control', 'no-cache').send(technicianPage(techBundle()));
  });
  router.get('/tech/sw.js', (_req, res) => {
    res.set({ 'cache-control': 'no-cache', 'service-worker-allowed': '/tech/' }).sendFile(path.join(swDir, 'sw.js'), (error) => error && res.status(404).end());
  });
  router.get('/tech/manifest.webmanifest', (_req, res) => {
    res.type('application/manifest+json').set('cache-control', 'no-cache').sendFile(path.join(APP_SOURCE, 'manifest.webmanifest'));
  });
  router.use('/tech/icons', express.static(path.join(APP_SOURCE, 'icons'), { maxAge: '1d', index: false }));
  router.use('/tech/assets', immutableFiles(dir));
  return router;
}

/**
 * The link a phone opens to sign in with a one-time code. The code goes in the fragment, which a
 * browser never sends to a server nor puts in a Referer, and the app takes it out of the address
 * as it opens.
 */
export function technicianAppSignInLink(baseUrl: string, code: string): string {
  return `${baseUrl}/tech/#code=${encodeURIComponent(code)}`;
}

/** The page, the same for a given build (its revision in the service worker's precache is the bundle's names). */
export function technicianPage(bundle: Bundle | null): string {
  const body = bundle
    ? `<div id="app"></div><script type="module" src="/tech/assets/${bundle.js}"></script>`
    : `<main style="font:16px system-ui;margin:1rem"><h1>Technician app</h1><p>The technician app is not built. Run <code>npm run build:tech</code>
      (<code>npm start</code> does it), then reload.</p></main>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
<meta name="theme-color" content="#0b5c7a"><title>Pool route</title>
<link rel="manifest" href="/tech/manifest.webmanifest"><link rel="icon" href="/tech/icons/icon-192.png">
<link rel="apple-touch-icon" href="/tech/icons/icon-192.png">${bundle ? `<link rel="stylesheet" href="/tech/assets/${bundle.css}">` : ''}</head><body>${body}</body></html>`;
}
