import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * Bundles a browser entry (the office app, the technician app, the GraphQL explorer) into a folder
 * the server serves, without ever leaving that folder without the files a page may be asking for:
 * esbuild writes to a fresh folder beside it; each file is then renamed into place (an atomic step
 * per file; a name already there carries the same content hash, so it stays as it is), and only
 * then are files of earlier builds removed. A server running meanwhile (`npm start` again, or a
 * test run that starts one while another is serving pages) never sees a missing or half-written
 * bundle.
 *
 *   node --import tsx server/build-bundle.ts <entry> <outdir> <name>
 *
 * Returns the names of the files built. `define` sets build-time constants (esbuild's), beside
 * production mode: tests build an app that speaks an older sync protocol this way
 * (client-sdk/replication/protocol.ts).
 */
export async function buildBundle(entry: string, outdir: string, name: string, define: Record<string, string> = {}): Promise<string[]> {
  const staging = `${outdir}.staging-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  const result = await build({
    entryPoints: { [name]: entry },
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    platform: 'browser',
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"', ...define },
    entryNames: '[name]-[hash]',
    outdir: staging,
    logLevel: 'warning',
    metafile: true,
  });
  await mkdir(outdir, { recursive: true });
  const built = await readdir(staging);
  for (const file of built) {
    const target = path.join(outdir, file);
    if (await stat(target).catch(() => null)) continue; // same name, same content
    await rename(path.join(staging, file), target);
  }
  await rm(staging, { recursive: true, force: true });
  for (const file of await readdir(outdir)) {
    if (!built.includes(file)) await rm(path.join(outdir, file), { recursive: true, force: true });
  }
  if (result.errors.length) throw new Error(`${entry} did not build`);
  return built;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [entry, outdir, name] = process.argv.slice(2);
  if (!entry || !outdir || !name) throw new Error('usage: build-bundle <entry> <outdir> <name>');
  await buildBundle(entry, outdir, name);
}
