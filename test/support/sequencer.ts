import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Runs the longest test files first. On a fresh clone (CI) vitest has no timings of its own and
 * starts the larger files first, which left the 2-minute convergence simulation running alone at
 * the end while the other worker idled. These are the files that take more than half a minute here;
 * the rest keep vitest's order.
 */
const LONGEST_FIRST = ['simulation.pg', 'office-app.pg', 'visit-reports.pg', 'technician-app', 'server-process', 'durability', 'job-resume.pg', 'backup', 'device-storage-browser'];

const rank = (spec: TestSpecification) => {
  const name = spec.moduleId.split('/').pop()!.replace(/\.test\.ts$/, '');
  const at = LONGEST_FIRST.indexOf(name);
  return at === -1 ? LONGEST_FIRST.length : at;
};

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return sorted.map((spec, i) => ({ spec, i })).sort((a, b) => rank(a.spec) - rank(b.spec) || a.i - b.i).map(({ spec }) => spec);
  }
}
