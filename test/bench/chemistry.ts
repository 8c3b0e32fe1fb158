import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { DEFAULT_CHEMISTRY_SETTINGS, waterBalance, type BalanceInput } from '../../shared/index.js';
import { seededRandom } from '../../shared/seeded-random.js';

/**
 * The water chemistry engine's speed (BENCH_ONLY=chemistry): 10,000 computations from varied
 * readings, in Node (the server) and in Chromium through the SDK's browser bundle (the phone's
 * engine), best and median of 20 batches after a warm-up. "Balance" is CSI and LSI alone (no
 * volume: no doses); "with doses" is a whole answer for a 15,000-gallon salt pool with a cap, as the
 * technician app computes on every keystroke. Goal: 10,000 in under 50 ms.
 */
const COUNT = 10_000;
const BATCHES = 20;

function inputs(withDoses: boolean): BalanceInput[] {
  const random = seededRandom(32);
  const between = (low: number, high: number) => low + random() * (high - low);
  const settings = { ...DEFAULT_CHEMISTRY_SETTINGS, caps: [{ chemical: 'MURIATIC_ACID' as const, amount: 64, unit: 'FL_OZ' as const }] };
  return Array.from({ length: COUNT }, () => ({
    readings: {
      ph: between(6.8, 8.4),
      totalAlkalinity: between(40, 180),
      freeChlorine: between(0, 8),
      calciumHardness: between(100, 600),
      cyanuricAcid: between(0, 120),
      salt: between(1800, 4200),
      temperature: between(50, 100),
    },
    ...(withDoses ? { volumeGallons: between(8_000, 30_000), body: 'SALT_POOL' as const, settings } : {}),
  }));
}

/** Milliseconds of each batch of COUNT computations. */
function timeBatches(all: BalanceInput[], compute: (input: BalanceInput) => unknown): number[] {
  for (const input of all.slice(0, 2_000)) compute(input);
  const times: number[] = [];
  for (let b = 0; b < BATCHES; b++) {
    const start = performance.now();
    for (const input of all) compute(input);
    times.push(performance.now() - start);
  }
  return times;
}

const row = (where: string, what: string, times: number[]) => {
  const sorted = [...times].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  console.log(`| ${where} | ${what} | ${sorted[0]!.toFixed(1)} | ${median.toFixed(1)} | ${Math.round((COUNT / median) * 1000).toLocaleString('en-US')} |`);
};

export async function benchChemistry(): Promise<void> {
  console.log('\nWater chemistry engine: 10,000 computations per batch, best and median of 20 batches');
  console.log('| where | computation | best ms | median ms | per second (median) |');
  console.log('|---|---|---|---|---|');
  const balance = inputs(false);
  const doses = inputs(true);
  row('Node', 'balance (CSI + LSI)', timeBatches(balance, (i) => waterBalance(i)));
  row('Node', 'with doses', timeBatches(doses, (i) => waterBalance(i)));

  const bundle = (await build({ entryPoints: ['client-sdk/index.ts'], bundle: true, format: 'iife', globalName: 'PoolSDK', platform: 'browser', target: 'es2022', minify: true, write: false, logLevel: 'silent' })).outputFiles[0]!.text;
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  try {
    const page = await browser.newPage();
    await page.setContent('<!doctype html><title>bench</title>');
    await page.addScriptTag({ content: bundle });
    for (const [what, all] of [['balance (CSI + LSI)', balance], ['with doses', doses]] as const) {
      const times = await page.evaluate(
        ({ all, batches }) => {
          const compute = (window as unknown as { PoolSDK: { waterBalance: (i: unknown) => unknown } }).PoolSDK.waterBalance;
          for (const input of all.slice(0, 2_000)) compute(input);
          const out: number[] = [];
          for (let b = 0; b < batches; b++) {
            const start = performance.now();
            for (const input of all) compute(input);
            out.push(performance.now() - start);
          }
          return out;
        },
        { all, batches: BATCHES },
      );
      row('Chromium (SDK bundle)', what, times);
    }
  } finally {
    await browser.close();
  }
}
