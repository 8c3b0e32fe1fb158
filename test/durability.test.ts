import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sampleFiles, uploadFile } from './fixtures/files.js';
import { endsWithThisProcess, ROOT, waitForOutput } from './support/child.js';
import { straceAvailable, TRACED_SYSCALLS, traceEvents, unsyncedBeforeAnswer } from './support/strace.js';
import { pushChanges } from './support/sync.js';

/**
 * Acknowledged means on disk, shown on the server's own system calls: the server (embedded store,
 * local files) runs under strace while it acknowledges a GraphQL mutation, a sync push and an
 * upload, and each answer's write(2) on the socket must come after a completed sync of every WAL
 * and file it wrote since the answer before (and of the folder a file was renamed into). The same
 * run with UNSAFE_NO_FSYNC=1 must break that for each of the three, or the check could not fail.
 */
const required = process.env.REQUIRE_STRACE === '1';
const haveStrace = straceAvailable();
if (required && !haveStrace) throw new Error('REQUIRE_STRACE=1 but strace is not installed (apt-get install strace)');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pool-durability-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const ADMIN = 'durability-test-platform-admin';

interface Traced {
  child: ChildProcess;
  url: string;
  traceFile: string;
  dataDir: string;
}

async function startTraced(name: string, env: Record<string, string>): Promise<Traced> {
  const dataDir = path.join(tmp, name);
  fs.mkdirSync(dataDir);
  const traceFile = path.join(tmp, `${name}.strace`);
  const child = endsWithThisProcess(
    spawn('strace', ['-f', '-y', '-s', '64', '--seccomp-bpf', '-e', `trace=${TRACED_SYSCALLS}`, '-o', traceFile, '--', process.execPath, '--import', 'tsx', 'server/main.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        PORT: '0',
        HOST: '127.0.0.1',
        DATABASE_URL: '',
        SEED_DEMO_ORG: 'false',
        BULK_WORKER: 'false',
        COMPRESSION: 'false',
        PLATFORM_ADMIN_TOKEN: ADMIN,
        LOG_LEVEL: 'warn',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  const out = await waitForOutput(child, /listening on (http:\/\/\S+)/, 120_000);
  child.stdout!.resume();
  return { child, url: /listening on (http:\/\/\S+)/.exec(out)![1]!, traceFile, dataDir: fs.realpathSync(dataDir) };
}

/** SIGTERM to the traced server (strace's own child), which shuts down; strace ends with it. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const children = fs.readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  for (const pid of children) process.kill(Number(pid), 'SIGTERM');
  await exited;
}

async function graphql(url: string, token: string, query: string, variables: Record<string, unknown>) {
  const res = await fetch(`${url}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
  const body = (await res.json()) as { data?: any; errors?: unknown };
  if (!body.data) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

/**
 * One request at a time, so the n-th answer in the trace is the n-th request's. Returns the
 * answer numbers of the three writes whose acknowledgment is checked.
 */
async function acknowledgeThreeWrites(url: string): Promise<{ mutation: number; push: number; upload: number }> {
  const res = await fetch(`${url}/admin/organizations`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Durable Pools' }) });
  const { token } = (await res.json()) as { token: string }; // answer 0
  const customer = (await graphql(url, token, 'mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { id } }', { input: { firstName: 'Dee', lastName: 'Durable' } })).createCustomer; // 1
  const pushed = await pushChanges({ url }, token, 'customers', [{ newDocumentState: { id: `pushed-${Date.now()}`, lastName: 'Pushed' } }]); // 2
  expect(pushed.status).toBe(200);
  const quote = (await graphql(url, token, 'mutation($input: CreateQuoteInput!) { createQuote(input: $input) { id } }', { input: { customerId: customer.id, title: 'Resurface' } })).createQuote; // 3
  const upload = await uploadFile(`${url}/quotes/${quote.id}/photos`, token, sampleFiles.png(4096), { caption: 'Before' }, { type: 'image/png', filename: 'before.png' }); // 4
  expect(upload.status).toBe(201);
  return { mutation: 1, push: 2, upload: 4 };
}

function problemsOf(run: Traced, answers: Record<string, number>): Record<string, string[]> {
  const events = traceEvents(fs.readFileSync(run.traceFile, 'utf8'));
  const watched = (file: string) => file.startsWith(path.join(run.dataDir, 'pg_wal') + '/') || file.startsWith(path.join(run.dataDir, 'blobs') + '/');
  return Object.fromEntries(Object.entries(answers).map(([name, index]) => [name, unsyncedBeforeAnswer(events, index, watched)]));
}

describe.skipIf(!haveStrace)('acknowledged writes are on disk (traced with strace; skipped when strace is missing unless REQUIRE_STRACE=1)', () => {
  it('a mutation, a push and an upload are each answered only after what they wrote is synced', { timeout: 240_000 }, async () => {
    const run = await startTraced('safe', {});
    let answers;
    try {
      answers = await acknowledgeThreeWrites(run.url);
    } finally {
      await stop(run.child);
    }
    const problems = problemsOf(run, answers);
    expect(problems).toEqual({ mutation: [], push: [], upload: [] });
  });

  it('with UNSAFE_NO_FSYNC=1 the same check finds each of them answered before a sync (so the check can fail)', { timeout: 240_000 }, async () => {
    const run = await startTraced('unsafe', { UNSAFE_NO_FSYNC: '1' });
    let answers;
    try {
      answers = await acknowledgeThreeWrites(run.url);
    } finally {
      await stop(run.child);
    }
    const problems = problemsOf(run, answers);
    expect(problems.mutation).toEqual([expect.stringMatching(/pg_wal.*without syncing it/)]);
    expect(problems.push).toEqual([expect.stringMatching(/pg_wal.*without syncing it/)]);
    expect(problems.upload).toEqual(expect.arrayContaining([expect.stringMatching(/blobs.*without syncing it/), expect.stringMatching(/renamed into .*blobs/), expect.stringMatching(/pg_wal/)]));
  });
});
