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
    const code = result.outputFiles[0]!.text;
    expect(code).not.toContain('RxDBDevModePlugin');
    expect(code.length).toBeLessThan(1_500_000);
  });
});
