/** Timing helpers for the benchmark scripts: sequential runs, percentiles, a printed table. */
export interface Timing {
  name: string;
  runs: number;
  p50: number;
  p95: number;
  max: number;
}

export async function measure(name: string, runs: number, fn: () => Promise<unknown>, warmup = 20): Promise<Timing> {
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!;
  return { name, runs, p50: at(0.5), p95: at(0.95), max: samples.at(-1)! };
}

export function printTimings(title: string, timings: readonly Timing[]): void {
  console.log(`\n${title}`);
  console.log('| query | runs | p50 ms | p95 ms | max ms |');
  console.log('|---|---|---|---|---|');
  for (const t of timings) {
    console.log(`| ${t.name} | ${t.runs} | ${t.p50.toFixed(1)} | ${t.p95.toFixed(1)} | ${t.max.toFixed(1)} |`);
  }
}

/** Seconds since `start` (a performance.now() value), one decimal. */
export const secondsSince = (start: number) => ((performance.now() - start) / 1000).toFixed(1);
