import { createHash } from 'node:crypto';
import { readFile, readdir, rename, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { buildBundle } from './build-bundle.js';
import { serviceWorkerDir, TECH_DIR, technicianPage } from './transports/http/technician-app.js';

/**
 * `npm run build:tech`: the technician app's bundle (server/dist/tech), then its service worker
 * (server/dist/tech-sw/sw.js): Workbox's precaching of everything the app needs to start with no
 * network at all, cold: the page, its script and styles, the manifest and the icons. The list is
 * written into the worker at build time, each entry with a revision (a hashed file name needs
 * none), so a new build is a new worker that fetches what changed; it waits until the app takes
 * it at a safe moment (client-sdk/technician-app/app-update.ts).
 */
const SOURCE = 'client-sdk/technician-app';

export interface TechnicianBuildOptions {
  /** Where the bundle goes (default server/dist/tech); the worker goes beside it (`<outDir>-sw`). */
  outDir?: string;
  /** esbuild constants for the app (tests build an app of an older sync protocol with them). */
  define?: Record<string, string>;
}

const revision = (content: string | Buffer) => createHash('sha256').update(content).digest('hex').slice(0, 16);

export async function buildTechnicianApp({ outDir = TECH_DIR, define = {} }: TechnicianBuildOptions = {}): Promise<void> {
  const built = await buildBundle(`${SOURCE}/main.tsx`, outDir, 'main', define);
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
  const swDir = serviceWorkerDir(outDir);
  await mkdir(swDir, { recursive: true });
  const staging = path.join(swDir, `sw.js.${process.pid}`);
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
  await rename(staging, path.join(swDir, 'sw.js'));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildTechnicianApp();
