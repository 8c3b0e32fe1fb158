import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { endsWithThisProcess, spawnTs, waitForOutput } from './support/child.js';
import { createTestDatabase, engines, TEST_DATABASE_URL } from './support/engines.js';
import { startReceiver, verifies } from './support/webhook-receiver.js';

/**
 * Webhooks across processes, with the server run as users run it (`server/main.ts`): a server
 * killed (SIGKILL) after an attempt reached the receiver and before it recorded the attempt
 * leaves the delivery to be made again, with the same webhook-id, by the next life; and two
 * servers on one PostgreSQL deliver each event to each endpoint once.
 */
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pool-webhooks-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const ADMIN = 'webhook-processes-platform-admin';
const CREATE = `mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { secret endpoint { id } } }`;
const CUSTOMER = `mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { id } }`;

interface Running {
  child: ChildProcess;
  url: string;
}

async function startServer(env: Record<string, string>): Promise<Running> {
  const child = endsWithThisProcess(
    spawnTs('server/main.ts', [], {
      PORT: '0',
      HOST: '127.0.0.1',
      SEED_DEMO_ORG: 'false',
      PLATFORM_ADMIN_TOKEN: ADMIN,
      RATE_LIMIT_PER_MINUTE: '0',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
      // A claimed attempt is held for twice this: the killed server's claim lapses after 2 s.
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_POLL_MS: '200',
      WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s',
      ...env,
    }),
  );
  const out = await waitForOutput(child, /listening on (http:\/\/127\.0\.0\.1:\d+)/, 150_000);
  child.stdout!.resume();
  return { child, url: /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]! };
}

function kill(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode) return resolve();
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

async function graphql(server: { url: string }, token: string, query: string, variables: Record<string, unknown>) {
  const res = await fetch(`${server.url}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
  const body = (await res.json()) as { data: any; errors?: unknown };
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

async function organization(server: { url: string }, name: string): Promise<string> {
  const res = await fetch(`${server.url}/admin/organizations`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name }) });
  return ((await res.json()) as { token: string }).token;
}

describe.each(engines)('webhooks across processes on %s', (engine) => {
  it('a server killed between an attempt and its record: the next life delivers it again, with the same webhook-id', { timeout: 400_000 }, async () => {
    const database = engine === 'postgres' ? await createTestDatabase() : null;
    const env = { DATA_DIR: path.join(tmp, `killed-${engine}`), DATABASE_URL: database?.url ?? '' };
    const receiver = await startReceiver();
    // The first delivery reaches the receiver, which holds it unanswered until the server is gone.
    receiver.answer = (_r, index) => (index === 0 ? 'hold' : { status: 204 });
    let server = await startServer(env);
    try {
      const token = await organization(server, 'Killed Pools');
      const { secret } = (await graphql(server, token, CREATE, { input: { url: `${receiver.url}/hook` } })).createWebhookEndpoint;
      const customer = (await graphql(server, token, CUSTOMER, { input: { lastName: 'Tanaka' } })).createCustomer.id;
      const [first] = await receiver.waitFor(1, undefined, 30_000);
      expect(first!.event).toMatchObject({ type: 'customer.created', data: { id: customer } });
      await kill(server.child);
      receiver.held.splice(0).forEach((res) => res.writeHead(204).end());

      server = await startServer(env);
      const [, again] = await receiver.waitFor(2, undefined, 60_000);
      expect(again!.id).toBe(first!.id);
      expect(again!.body).toBe(first!.body);
      expect(verifies(secret, again!)).toBe(true);
      await new Promise((r) => setTimeout(r, 3_000));
      expect(receiver.received).toHaveLength(2);
      const log = (await graphql(server, token, `{ infiniteWebhookDeliveries(first: 10) { edges { node { eventId attempt status succeeded } } } }`, {})).infiniteWebhookDeliveries.edges.map((e: { node: unknown }) => e.node);
      // The killed life's attempt was never recorded; the next life's is the delivery's second.
      expect(log).toEqual([{ eventId: first!.id, attempt: 2, status: 204, succeeded: true }]);
    } finally {
      await kill(server.child, 'SIGTERM');
      await receiver.close();
      await database?.dropDatabase();
    }
  });
});

describe('webhooks from two processes', () => {
  it.skipIf(!TEST_DATABASE_URL)('two servers on one PostgreSQL deliver each event to each endpoint once', { timeout: 400_000 }, async () => {
    const database = await createTestDatabase();
    const env = { DATABASE_URL: database.url, DATA_DIR: path.join(tmp, 'two') };
    const receiver = await startReceiver();
    const servers: Running[] = [];
    try {
      servers.push(await startServer(env));
      servers.push(await startServer(env));
      const token = await organization(servers[0]!, 'Twice Pools');
      const paths = ['/a', '/b', '/c'];
      for (const p of paths) await graphql(servers[0]!, token, CREATE, { input: { url: `${receiver.url}${p}` } });
      const EVENTS = 60;
      await Promise.all(Array.from({ length: EVENTS }, (_, i) => graphql(servers[i % 2]!, token, CUSTOMER, { input: { lastName: `Twice ${i}` } })));
      for (const p of paths) await receiver.waitFor(EVENTS, (r) => r.path === p, 60_000);
      await new Promise((r) => setTimeout(r, 3_000));
      for (const p of paths) {
        const ids = receiver.received.filter((r) => r.path === p).map((r) => r.id);
        expect(ids).toHaveLength(EVENTS);
        expect(new Set(ids).size).toBe(EVENTS);
      }
    } finally {
      await Promise.all(servers.map((s) => kill(s.child, 'SIGTERM')));
      await receiver.close();
      await database.dropDatabase();
    }
  });
});
