import { execFileSync } from 'node:child_process';

/**
 * Vitest global setup: bundles the office app once (`npm run build:app`, under a second) before
 * any test file runs, so the servers tests start serve the current app at /app, and no two test
 * files rebuild it under each other.
 */
export default function buildOfficeApp(): void {
  execFileSync('npm', ['run', '--silent', 'build:app'], { stdio: ['ignore', 'ignore', 'inherit'] });
}
