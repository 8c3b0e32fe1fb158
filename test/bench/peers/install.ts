import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../support/child.js';

/**
 * This folder's own packages (the peers: PouchDB, Zero), in its own package.json and lockfile so
 * that the product's dependencies never include them, installed here by the bench.
 */
export const PEERS = path.join(ROOT, 'test/bench/peers');

const readJson = <T>(file: string) => JSON.parse(readFileSync(file, 'utf8')) as T;

/** The version of one of this folder's packages as installed. */
export function installedVersion(name: string): string {
  return readJson<{ version: string }>(path.join(PEERS, 'node_modules', name, 'package.json')).version;
}

/** Whether node_modules holds every dependency of package.json at its pinned version. */
function installed(): boolean {
  const { dependencies } = readJson<{ dependencies: Record<string, string> }>(path.join(PEERS, 'package.json'));
  return Object.entries(dependencies).every(([name, version]) => existsSync(path.join(PEERS, 'node_modules', name, 'package.json')) && installedVersion(name) === version);
}

/** `npm ci` in this folder when a package is missing or at another version: the lockfile's exact tree. */
export function installPeers(): void {
  if (installed()) return;
  console.error(`installing the peers' packages into ${path.relative(ROOT, PEERS)}/node_modules`);
  const run = spawnSync('npm', ['ci', '--prefix', PEERS, '--no-audit', '--no-fund'], { stdio: 'inherit' });
  if (run.status !== 0) throw new Error(`npm ci --prefix ${PEERS} failed`);
}
