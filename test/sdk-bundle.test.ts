import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

/** The SDK bundles for browsers (what `npm run build:sdk` does) without RxDB dev-mode or server code. */
describe('client SDK browser bundle', () => {
  it('builds for the browser with no dev-mode plugin, no server code and no Node built-ins', async () => {
    const result = await build({
      entryPoints: ['client-sdk/index.ts'],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      minify: true,
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    expect(result.errors).toEqual([]);
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.some((i) => i.includes('node_modules/rxdb/'))).toBe(true);
    expect(inputs.filter((i) => /plugins\/dev-mode/.test(i))).toEqual([]);
    expect(inputs.filter((i) => i.startsWith('server/'))).toEqual([]);
    expect(inputs.filter((i) => i.startsWith('node:'))).toEqual([]);
    // The office app is built on the SDK, never part of it.
    expect(inputs.filter((i) => i.startsWith('client-sdk/office-app/') || i.includes('node_modules/react'))).toEqual([]);
    // zod's locales stay out (shared/ imports zod as a namespace, so esbuild drops what is unused).
    const emitted = Object.entries(Object.values(result.metafile.outputs)[0]!.inputs).filter(([, i]) => i.bytesInOutput > 0).map(([name]) => name);
    expect(emitted.filter((i) => /zod\/v4\/locales\/(?!en\.js)/.test(i))).toEqual([]);
    const code = result.outputFiles[0]!.text;
    expect(code).not.toContain('RxDBDevModePlugin');
    expect(code.length).toBeLessThan(600_000);
  });
});
