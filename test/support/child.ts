import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Runs a TypeScript entry point of ours in a child process, the way `npm start` does:
 * `node --import tsx`, one process, so signals reach our handlers directly.
 */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function spawnTs(script: string, args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, script), ...args], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** `npm start` exactly as a user types it (it builds server/dist/main.js, then runs it). */
export function spawnNpmStart(env: Record<string, string>): ChildProcess {
  return spawn('npm', ['start', '--silent'], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * What `npm start` runs, built first, as a direct child (so its pid is the server's own, for
 * reading its memory): the benchmarks measure the server users run.
 */
export async function spawnBuiltServer(env: Record<string, string>): Promise<ChildProcess> {
  const build = await finished(spawn('npm', ['run', '--silent', 'build:server'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] }));
  if (build.code !== 0) throw new Error(`npm run build:server failed:\n${build.stderr}`);
  return spawnServerBundle(env);
}

/**
 * The server bundle `npm start` runs (server/dist/main.js), as it was last built. BENCH_SERVER_NODE_ARGS
 * adds flags to its node (a profile of the server under a bench: `--cpu-prof --cpu-prof-dir=/tmp/p`).
 */
export function spawnServerBundle(env: Record<string, string>): ChildProcess {
  const nodeArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  return spawn(process.execPath, ['--enable-source-maps', ...nodeArgs, path.join(ROOT, 'server/dist/main.js')], {
    cwd: ROOT,
    // As `npm start` runs it: production unless the caller's environment says otherwise (vitest: test).
    env: { NODE_ENV: 'production', ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export function runTs(script: string, args: string[], env: Record<string, string>): Promise<Finished> {
  const child = spawnTs(script, args, env);
  return finished(child);
}

export function finished(child: ChildProcess): Promise<Finished> {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** Resolves with stdout so far once it matches, or rejects when the process ends first. */
export function waitForOutput(child: ChildProcess, pattern: RegExp, timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}; got:\n${out}`)), timeoutMs);
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      if (pattern.test(out)) {
        clearTimeout(timer);
        resolve(out);
      }
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`process exited (${code}) before printing ${pattern}; got:\n${out}`));
    });
  });
}

const living = new Set<ChildProcess>();

/**
 * Ends the child when this process ends, however it ends: a test that times out is abandoned by
 * vitest, its `finally` never runs, and the worker's exit would otherwise leave servers and
 * simulated devices running (seen: a timed-out simulation left five processes using the cores for
 * an hour). Returns the child.
 */
export function endsWithThisProcess<C extends ChildProcess>(child: C): C {
  if (!living.size) process.once('exit', () => {
    for (const c of living) c.kill('SIGKILL');
  });
  living.add(child);
  child.once('exit', () => living.delete(child));
  return child;
}
