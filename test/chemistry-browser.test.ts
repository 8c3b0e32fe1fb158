import fs from 'node:fs';
import { gzipSync } from 'node:zlib';
import { build, type BuildOptions, type Plugin } from 'esbuild';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waterBalance, type BalanceInput, type WaterBalance } from '../shared/index.js';
import { atPrecision, VECTORS } from './fixtures/chemistry-vectors.js';

/**
 * The engine in a real browser (Debian's Chromium), through the SDK's browser bundle as an app
 * loads it: the vectors give the very numbers the server computes (every answer equal
 * field by field, to the last bit), and the engine adds at most 10 KB gzip to that bundle.
 */
const CHROMIUM = '/usr/bin/chromium';
const runs = fs.existsSync(CHROMIUM) || Boolean(process.env.REQUIRE_CHROMIUM);

declare global {
  interface Window {
    PoolSDK: typeof import('../client-sdk/index.js');
  }
}

const BUNDLE: BuildOptions = { entryPoints: ['client-sdk/index.ts'], bundle: true, format: 'esm', platform: 'browser', target: 'es2022', minify: true, write: false, logLevel: 'silent' };

/**
 * The SDK without the engine: its exports of shared/chemistry dropped, and the dose actions (the
 * one other user of the engine's code) stubbed. What the bundle holds besides is the SDK as it was.
 */
const withoutEngine: Plugin = {
  name: 'without-engine',
  setup(b) {
    b.onLoad({ filter: /client-sdk\/index\.ts$/ }, async (args) => ({
      contents: (await fs.promises.readFile(args.path, 'utf8')).replace(/\/\/ The water chemistry engine[\s\S]*?from '\.\.\/shared\/chemistry\/index\.js';/, ''),
      loader: 'ts',
      resolveDir: 'client-sdk',
    }));
    b.onLoad({ filter: /client-sdk\/actions\/doses\.ts$/ }, () => ({ contents: 'export const recordDose = () => {}; export const correctDose = () => {};', loader: 'ts' }));
  },
};

const gzipBytes = async (options: BuildOptions) => gzipSync((await build(options)).outputFiles![0]!.contents).length;

describe.runIf(runs)('the water chemistry engine in a browser', () => {
  let browser: Browser;
  let bundle: string;

  beforeAll(async () => {
    bundle = (await build({ ...BUNDLE, format: 'iife', globalName: 'PoolSDK', minify: false })).outputFiles![0]!.text;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('gives the numbers the server gives, for every vector, to the last bit', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.setContent('<!doctype html><title>engine</title>');
    await page.addScriptTag({ content: bundle });
    const inputs: BalanceInput[] = VECTORS.map((v) => v.input);
    const inBrowser = await page.evaluate((all) => all.map((input) => window.PoolSDK.waterBalance(input)), inputs);
    const inNode: WaterBalance[] = inputs.map((input) => waterBalance(input));
    expect(inBrowser).toEqual(inNode);
    VECTORS.forEach((v, i) => expect(atPrecision(v.read(inBrowser[i]!), v.places), v.name).toBe(v.expected));
    // Not only the vectors: a whole visit's worth of answers, caps and notes included.
    const visit = { readings: { ph: 8.1, totalAlkalinity: 150, freeChlorine: 0.5, calciumHardness: 120, cyanuricAcid: 20, salt: 2400, temperature: 86 }, volumeGallons: 18_500, body: 'SALT_POOL' as const };
    expect(await page.evaluate((input) => window.PoolSDK.waterBalance(input), visit)).toEqual(waterBalance(visit));
    expect(errors).toEqual([]);
    await page.close();
  });

  it('adds at most 10 KB gzip to the SDK bundle', async () => {
    const [full, without] = await Promise.all([gzipBytes(BUNDLE), gzipBytes({ ...BUNDLE, plugins: [withoutEngine] })]);
    console.log(`SDK bundle: ${full} bytes gzip with the engine, ${without} without it: +${full - without}`);
    expect(without).toBeLessThan(full);
    expect(full - without).toBeLessThanOrEqual(10 * 1024);
  });
});
