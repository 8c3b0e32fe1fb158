import { createHash } from 'node:crypto';
import { readFile, readdir, rename, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';
import { buildBundle } from './build-bundle.js';
import { technicianPage } from './transports/http/technician-app.js';

/**
 * `npm run build:tech`: the technician app's bundle (server/dist/tech), then its service worker
 * (server/dist/tech-sw/sw.js): Workbox's precaching of everything the app needs to start with no
 * network at all, cold: the page, its script and styles, the manifest and the icons. The list is
 * written into the worker at build time, each entry with a revision (a hashed file name needs
 * none), so a new build is a new worker that fetches what changed.
 */
const SOURCE = 'client-sdk/technician-app';
const OUT = 'server/dist/tech';
const SW_OUT = 'server/dist/tech-sw';

const revision = (content: string | Buffer) => createHash('sha256').update(content).digest('hex').slice(0, 16);

const built = await buildBundle(`${SOURCE}/main.tsx`, OUT, 'main');
const js = built.find((f) => f.endsWith('.js'))!;
const css = built.find((f) => f.endsWith('.css'))!;
const icons = (await readdir(`${SOURCE}/icons`)).filter((f) => f.endsWith('.png'));
const precache = [
  { url: '/tech/', revision: revision(technicianPage({ js, css })) },
  { url: `/tech/assets/${js}`, revision: null },
  { url: `/tech/assets/${css}`, revision: null },
  { url: '/tech/manifest.webmanifest', revision: revision(await readFile(`${SOURCE}/manifest.webmanifest`)) },
  ...(await Promise.all(icons.map(async (icon) => ({ url: `/tech/icons/${icon}`, revision: revision(await readFile(`${SOURCE}/icons/${icon}`)) })))),
];
await mkdir(SW_OUT, { recursive: true });
const staging = path.join(SW_OUT, `sw.js.${process.pid}`);
await build({
  entryPoints: [`${SOURCE}/sw.ts`],
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'es2022',
  platform: 'browser',
  define: { PRECACHE: JSON.stringify(precache), 'process.env.NODE_ENV': '"production"' },
  outfile: staging,
  logLevel: 'warning',
});
await rename(staging, path.join(SW_OUT, 'sw.js'));
