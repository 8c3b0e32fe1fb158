export { seededRandom } from '../../shared/seeded-random.js';

/** Picks a key with probability proportional to its weight. */
export function weighted<K extends string>(random: () => number, weights: Record<K, number>): K {
  const entries = Object.entries(weights) as [K, number][];
  let r = random() * entries.reduce((sum, [, w]) => sum + w, 0);
  for (const [key, weight] of entries) {
    r -= weight;
    if (r < 0) return key;
  }
  return entries.at(-1)![0];
}
