import { execFileSync } from 'node:child_process';

/**
 * Vitest global setup: bundles the office app and the technician app once (`npm run build:app`,
 * `npm run build:tech`, a few seconds) before any test file runs, so the servers tests start serve
 * the current apps at /app and /tech/, and no two test files rebuild them under each other.
 */
export default function buildApps(): void {
  for (const script of ['build:app', 'build:tech']) execFileSync('npm', ['run', '--silent', script], { stdio: ['ignore', 'ignore', 'inherit'] });
}
