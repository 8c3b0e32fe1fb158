import { mkdtemp, rm } from 'node:fs/promises';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';

/**
 * The replica's storage beside RxDB's Dexie storage (BENCH_ONLY=storage): RxDB's own storage
 * performance test (`runPerformanceTests`, rxdb/plugins/test-utils: four collections of its
 * `averageSchema`, 3,000 documents inserted in six batches, found by id, by query, by four queries
 * at once, counted, 50 inserted and found one at a time) in Debian's Chromium, on a profile on disk
 * as a user's browser keeps IndexedDB. Two rounds, the storages alternating, so that the machine's
 * load falls on both alike; each figure is the mean of BENCH_STORAGE_RUNS runs (10) less the
 * slowest 5 %, in milliseconds.
 */
const RUNS = Number(process.env.BENCH_STORAGE_RUNS ?? 10);
const DOCS = Number(process.env.BENCH_STORAGE_DOCS ?? 3000);
const ROUNDS = 2;
const LAUNCH = { executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] };
// The page's origin: IndexedDB needs one; its requests are answered here, nothing goes out.
const ORIGIN = 'http://storage-bench.localhost';

type Result = Record<string, number | string>;
interface StorageBench {
  names: string[];
  run: (name: string, runs: number, docsAmount: number) => Promise<Result>;
}

async function pageBundle(): Promise<string> {
  const built = await build({
    entryPoints: ['test/bench/storage-page.ts'],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
    logLevel: 'silent',
    // RxDB's test-utils import Node's assert.
    plugins: [{ name: 'browser-assert', setup: (b) => b.onResolve({ filter: /^assert$/ }, () => ({ path: path.resolve('test/bench/browser-assert.ts') })) }],
  });
  return built.outputFiles[0]!.text;
}

const load = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');

export async function benchStorage(): Promise<void> {
  console.log(`\nThe replica's storage beside RxDB's Dexie storage: RxDB's storage performance test, ${DOCS} documents, ${RUNS} runs a round, ms`);
  const bundle = await pageBundle();
  const folder = await mkdtemp(path.join(tmpdir(), 'bench-storage-'));
  const browser = await chromium.launchPersistentContext(path.join(folder, 'profile'), LAUNCH);
  try {
    await browser.route(`${ORIGIN}/**`, (route) =>
      route.request().url().endsWith('/bench.js')
        ? route.fulfill({ contentType: 'text/javascript', body: bundle })
        : route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>storage bench</title><script src="/bench.js"></script>' }),
    );
    const page = browser.pages()[0] ?? (await browser.newPage());
    await page.goto(`${ORIGIN}/`);
    const names = await page.evaluate(() => (window as unknown as { storageBench: StorageBench }).storageBench.names);
    const results = new Map<string, Result[]>(names.map((name) => [name, []]));
    console.log(`load average before: ${load()}`);
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of round % 2 ? [...names].reverse() : names) {
        const result = await page.evaluate(({ name, runs, docs }) => (window as unknown as { storageBench: StorageBench }).storageBench.run(name, runs, docs), { name, runs: RUNS, docs: DOCS });
        results.get(name)!.push(result);
        console.log(`  round ${round + 1}, ${name}: done (load average ${load()})`);
      }
    }
    printTable(names, results);
    console.log(`load average after: ${load()}`);
  } finally {
    await browser.close();
    await rm(folder, { recursive: true, force: true });
  }
}

function printTable(names: string[], results: Map<string, Result[]>): void {
  const [ours, dexie] = names as [string, string];
  const metrics = Object.keys(results.get(ours)![0]!).filter((key) => typeof results.get(ours)![0]![key] === 'number' && !['collectionsAmount', 'docsAmount'].includes(key));
  const rounds = (name: string, metric: string) => results.get(name)!.map((r) => Number(r[metric]));
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  console.log(`| measure | ${ours} (rounds) | ${dexie} (rounds) | ours / Dexie |`);
  console.log('|---|---|---|---|');
  for (const metric of metrics) {
    const a = rounds(ours, metric);
    const b = rounds(dexie, metric);
    console.log(`| ${metric} | ${a.map((v) => v.toFixed(1)).join(' / ')} | ${b.map((v) => v.toFixed(1)).join(' / ')} | ${(mean(a) / mean(b)).toFixed(2)} |`);
  }
}
