import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { provisionOrganization } from '../server/operations/organization.js';
import { caller, ok, tokenFor } from './support/api.js';
import { engines, openTestStore, type TestStore } from './support/engines.js';
import { startMailbox, type Mailbox } from './support/mailboxes.js';
import { startTestServer, type TestServer } from './support/server.js';
import { startReceiver, verifies, type Receiver } from './support/webhook-receiver.js';

/**
 * Webhooks end to end, with real receivers on the loopback: what a receiver gets (Standard
 * Webhooks headers, a signature the `standardwebhooks` package verifies), retries with the same
 * webhook-id until a 2xx and nothing after, subscriptions, secret rotation, the secret shown
 * once, a 410 and a long failure disabling the endpoint with a notice, redelivery and the
 * delivery log. The worker polls only once a minute here: every delivery below is woken by its
 * event's commit (NOTIFY) or by its own retry time.
 */
const CREATE = `mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { secret endpoint { id url eventTypes enabled } } }`;
const ENDPOINTS = `{ webhookEndpoints { id url enabled disabledReason disabledAt failingSince lastSuccessAt pendingDeliveries failedDeliveries previousSecretExpiresAt } }`;
const CUSTOMER = `mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { id } }`;
const EVENTS = `query($first: Int!, $after: String, $filter: EventFilter) { infiniteEvents(first: $first, after: $after, filter: $filter) { edges { cursor node { id type occurredAt organizationId data } } pageInfo { hasNextPage endCursor } } }`;
const DELIVERIES = `query($filter: WebhookDeliveryFilter) { infiniteWebhookDeliveries(first: 100, filter: $filter) { edges { node { id endpointId eventId eventType attempt attemptedAt status durationMs error succeeded } } } }`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const until = async <T>(read: () => Promise<T>, done: (v: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> => {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await sleep(50);
  }
};

describe.each(engines)('webhooks on %s', { timeout: 120_000 }, (engine) => {
  let store: TestStore;
  let server: TestServer;
  let receiver: Receiver;
  let mailbox: Mailbox;

  beforeAll(async () => {
    store = await openTestStore(engine);
    receiver = await startReceiver();
    mailbox = await startMailbox();
    server = await startTestServer(store.db, {
      webhooks: {
        allowHttp: true,
        allowPrivateAddresses: true,
        retrySchedule: [0.2, 0.2, 0.2, 0.2, 0.2],
        attemptTimeoutMs: 2_000,
        pollMs: 60_000,
        smtpUrl: mailbox.smtpUrl,
      },
    });
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
    await mailbox?.close();
    await store?.drop();
  });

  /** A new organization (so each test sees only its own events) and its ADMIN's caller. */
  async function organization(name: string) {
    const { token, organization: org } = await provisionOrganization(store.db, { name });
    return { token, org, gql: caller(server, token) };
  }

  async function endpoint(gql: ReturnType<typeof caller>, path: string, eventTypes?: string[]) {
    const created = ok(await gql(CREATE, { input: { url: `${receiver.url}${path}`, description: path, ...(eventTypes ? { eventTypes } : {}) } })).createWebhookEndpoint as {
      secret: string;
      endpoint: { id: string; url: string; eventTypes: string[] | null; enabled: boolean };
    };
    return { id: created.endpoint.id, secret: created.secret, path };
  }

  const at = (path: string) => (r: { path: string }) => r.path === path;

  it('delivers each event once, as Standard Webhooks signs it, promptly after its commit', async () => {
    const { gql, org } = await organization('Signed Pools');
    const hook = await endpoint(gql, '/signed');
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const started = Date.now();
    const customer = ok(await gql(CUSTOMER, { input: { lastName: 'Delgado' } })).createCustomer.id as string;
    const [delivery] = await receiver.waitFor(1, at('/signed'), 10_000);
    // The poll is a minute: only the commit's NOTIFY explains a delivery this soon.
    expect(delivery!.at - started).toBeLessThan(10_000);
    expect(verifies(hook.secret, delivery!)).toBe(true);
    expect(verifies(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, delivery!)).toBe(false);
    expect(delivery!.headers['content-type']).toBe('application/json');
    expect(Math.abs(Number(delivery!.timestamp) - Date.now() / 1000)).toBeLessThan(60);
    const events = ok(await gql(EVENTS, { first: 10 })).infiniteEvents.edges.map((e: { node: unknown }) => e.node);
    expect(events).toEqual([{ id: delivery!.id, type: 'customer.created', occurredAt: expect.any(String), organizationId: org.id, data: { id: customer } }]);
    expect(delivery!.event).toEqual(events[0]);
    await sleep(500);
    expect(receiver.received.filter(at('/signed'))).toHaveLength(1);
    const health = ok(await gql(ENDPOINTS)).webhookEndpoints[0];
    expect(health).toMatchObject({ enabled: true, failingSince: null, pendingDeliveries: 0, lastSuccessAt: expect.any(String) });
  });

  it('retries a failing receiver with the same webhook-id until it answers, and sends nothing after', async () => {
    const { gql } = await organization('Flaky Pools');
    let calls = 0;
    const previous = receiver.answer;
    receiver.answer = (r, i) => (r.path === '/flaky' ? (++calls <= 3 ? { status: 500, body: 'database down' } : { status: 200 }) : previous(r, i));
    try {
      const hook = await endpoint(gql, '/flaky');
      ok(await gql(CUSTOMER, { input: { lastName: 'Okafor' } }));
      const tries = await receiver.waitFor(4, at('/flaky'));
      expect(new Set(tries.map((t) => t.id)).size).toBe(1);
      expect(tries.every((t) => verifies(hook.secret, t))).toBe(true);
      await sleep(1_500);
      expect(receiver.received.filter(at('/flaky'))).toHaveLength(4);
      const log = await until(
        async () => ok(await gql(DELIVERIES, { filter: { endpointId: hook.id } })).infiniteWebhookDeliveries.edges.map((e: { node: any }) => e.node),
        (rows) => rows.length === 4,
        'four attempts in the log',
      );
      expect(log.map((a: any) => [a.attempt, a.status, a.succeeded])).toEqual([
        [4, 200, true],
        [3, 500, false],
        [2, 500, false],
        [1, 500, false],
      ]);
      expect(log[1].error).toBe('HTTP 500: database down');
      expect(log.every((a: any) => a.eventId === tries[0]!.id && a.durationMs >= 0)).toBe(true);
      const health = ok(await gql(ENDPOINTS)).webhookEndpoints[0];
      expect(health).toMatchObject({ enabled: true, failingSince: null, pendingDeliveries: 0, failedDeliveries: 0 });
    } finally {
      receiver.answer = previous;
    }
  });

  it('gives up after the schedule, keeping the delivery as failed to redeliver', async () => {
    const { gql } = await organization('Down Pools');
    const previous = receiver.answer;
    receiver.answer = (r, i) => (r.path === '/down' ? { status: 503 } : previous(r, i));
    try {
      const hook = await endpoint(gql, '/down');
      ok(await gql(CUSTOMER, { input: { lastName: 'Moreau' } }));
      // The first attempt and one per wait in the schedule (five), then no more.
      const tries = await receiver.waitFor(6, at('/down'));
      await sleep(1_000);
      expect(receiver.received.filter(at('/down'))).toHaveLength(6);
      const health = await until(async () => ok(await gql(ENDPOINTS)).webhookEndpoints[0], (e) => e.failedDeliveries === 1, 'the failed delivery');
      expect(health).toMatchObject({ enabled: true, pendingDeliveries: 0, failingSince: expect.any(String) });

      receiver.answer = previous;
      const again = ok(await gql(`mutation($e: ID!, $p: ID!) { redeliverEvent(eventId: $e, endpointId: $p) { eventId endpointId } }`, { e: tries[0]!.id, p: hook.id })).redeliverEvent;
      expect(again).toEqual({ eventId: tries[0]!.id, endpointId: hook.id });
      const all = await receiver.waitFor(7, at('/down'));
      expect(all[6]!.id).toBe(tries[0]!.id);
      expect(verifies(hook.secret, all[6]!)).toBe(true);
      await until(async () => ok(await gql(ENDPOINTS)).webhookEndpoints[0], (e) => e.failedDeliveries === 0 && e.failingSince === null, 'a healthy endpoint');
    } finally {
      receiver.answer = previous;
    }
  });

  it('sends an endpoint only the types it subscribed to; an empty list means every type', async () => {
    const { gql } = await organization('Choosy Pools');
    await endpoint(gql, '/choosy', ['customer.updated']);
    await endpoint(gql, '/everything', []);
    const id = ok(await gql(CUSTOMER, { input: { lastName: 'Nakamura' } })).createCustomer.id;
    ok(await gql(`mutation($id: ID!) { updateCustomer(id: $id, input: {notes: "Gate code 4411"}) { id } }`, { id }));
    const everything = await receiver.waitFor(2, at('/everything'));
    const choosy = await receiver.waitFor(1, at('/choosy'));
    await sleep(300);
    expect(everything.map((r) => r.event.type).sort()).toEqual(['customer.created', 'customer.updated']);
    expect(receiver.received.filter(at('/choosy')).map((r) => r.event)).toEqual([expect.objectContaining({ type: 'customer.updated', data: { id, changes: ['notes'] } })]);
    expect(choosy[0]!.id).toBe(everything.find((r) => r.event.type === 'customer.updated')!.id);
  });

  it('signs with the old and the new secret for a day after a rotation, then with the new only', async () => {
    const { gql } = await organization('Rotating Pools');
    const hook = await endpoint(gql, '/rotating');
    const rotated = ok(await gql(`mutation($id: ID!) { rotateWebhookSecret(id: $id) { secret endpoint { id previousSecretExpiresAt } } }`, { id: hook.id })).rotateWebhookSecret;
    expect(rotated.secret).not.toBe(hook.secret);
    const overlap = Date.parse(rotated.endpoint.previousSecretExpiresAt) - Date.now();
    expect(overlap).toBeGreaterThan(23.9 * 3_600_000);
    expect(overlap).toBeLessThan(24.1 * 3_600_000);
    ok(await gql(CUSTOMER, { input: { lastName: 'Ferreira' } }));
    const [during] = await receiver.waitFor(1, at('/rotating'));
    expect(during!.signature.split(' ')).toHaveLength(2);
    expect(verifies(hook.secret, during!)).toBe(true);
    expect(verifies(rotated.secret, during!)).toBe(true);

    // A day later (the overlap's end moved into the past): the old secret no longer signs.
    await store.db.query(`update webhook_endpoints set previous_secret_until = now() - interval '1 second' where id = $1`, [hook.id]);
    ok(await gql(CUSTOMER, { input: { lastName: 'Ferreira' } }));
    const after = (await receiver.waitFor(2, at('/rotating')))[1]!;
    expect(after.signature.split(' ')).toHaveLength(1);
    expect(verifies(rotated.secret, after)).toBe(true);
    expect(verifies(hook.secret, after)).toBe(false);
    expect(ok(await gql(ENDPOINTS)).webhookEndpoints[0].previousSecretExpiresAt).toBeNull();
  });

  it('answers the secret once: a retry with the same Idempotency-Key gets the endpoint and a null secret', async () => {
    const { gql, token } = await organization('Careful Pools');
    const send = (query: string, variables: Record<string, unknown>, key: string) =>
      fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify({ query, variables }),
      });
    const input = { input: { url: `${receiver.url}/careful` } };
    const first = await send(CREATE, input, 'create-careful-1');
    const firstBody = (await first.json()) as any;
    const secret = firstBody.data.createWebhookEndpoint.secret as string;
    expect(secret).toMatch(/^whsec_/);
    const replay = await send(CREATE, input, 'create-careful-1');
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const replayBody = (await replay.json()) as any;
    expect(replayBody.data.createWebhookEndpoint).toEqual({ ...firstBody.data.createWebhookEndpoint, secret: null });
    expect(ok(await gql(ENDPOINTS)).webhookEndpoints).toHaveLength(1);

    const id = firstBody.data.createWebhookEndpoint.endpoint.id;
    const ROTATE = `mutation($id: ID!) { rotateWebhookSecret(id: $id) { secret } }`;
    const rotated = ((await (await send(ROTATE, { id }, 'rotate-careful-1')).json()) as any).data.rotateWebhookSecret.secret as string;
    expect(rotated).toMatch(/^whsec_/);
    expect(((await (await send(ROTATE, { id }, 'rotate-careful-1')).json()) as any).data.rotateWebhookSecret.secret).toBeNull();
    const { rows } = await store.db.query<{ answer: string }>(`select answer::text as answer from idempotency_keys where key like '%-careful-1'`);
    expect(rows).toHaveLength(2);
    for (const { answer } of rows) {
      expect(answer).not.toContain(secret);
      expect(answer).not.toContain(rotated);
    }
  });

  it('disables an endpoint that answers 410 Gone, and tells the organization by email', async () => {
    const { gql } = await organization('Gone Pools');
    ok(await gql(`mutation { updateOrganization(input: {email: "owner@gone-pools.example"}) { id } }`));
    const previous = receiver.answer;
    receiver.answer = (r, i) => (r.path === '/gone' ? { status: 410 } : previous(r, i));
    try {
      const hook = await endpoint(gql, '/gone');
      ok(await gql(CUSTOMER, { input: { lastName: 'Lindqvist' } }));
      await receiver.waitFor(1, at('/gone'));
      const disabled = await until(async () => ok(await gql(ENDPOINTS)).webhookEndpoints[0], (e) => !e.enabled, 'the endpoint disabled');
      expect(disabled.disabledReason).toContain('410');
      const mail = await until(async () => mailbox.mails.find((m) => m.subject?.includes(hook.path)), Boolean, 'the notice email');
      expect(mail!.to).toMatchObject({ text: 'owner@gone-pools.example' });
      expect(mail!.text).toContain('410 Gone');
      ok(await gql(CUSTOMER, { input: { lastName: 'Lindqvist' } }));
      await sleep(800);
      expect(receiver.received.filter(at('/gone'))).toHaveLength(1);

      // Enabled again, it receives what happens from then on.
      receiver.answer = previous;
      ok(await gql(`mutation($id: ID!) { updateWebhookEndpoint(id: $id, input: {enabled: true}) { enabled disabledReason } }`, { id: hook.id }));
      ok(await gql(CUSTOMER, { input: { lastName: 'Lindqvist' } }));
      const [, back] = await receiver.waitFor(2, at('/gone'));
      expect(back!.event.type).toBe('customer.created');
    } finally {
      receiver.answer = previous;
    }
  });

  it('disables an endpoint that has failed for longer than WEBHOOK_DISABLE_AFTER_HOURS', async () => {
    const { gql } = await organization('Broken Pools');
    const previous = receiver.answer;
    receiver.answer = (r, i) => (r.path === '/broken' ? { status: 500 } : previous(r, i));
    try {
      const hook = await endpoint(gql, '/broken');
      ok(await gql(CUSTOMER, { input: { lastName: 'Abara' } }));
      await until(async () => ok(await gql(ENDPOINTS)).webhookEndpoints[0], (e) => e.failingSince !== null, 'failing');
      // Five days on (the failure's start moved into the past), the next failure disables it.
      await store.db.query(`update webhook_endpoints set failing_since = now() - interval '121 hours' where id = $1`, [hook.id]);
      const disabled = await until(async () => ok(await gql(ENDPOINTS)).webhookEndpoints[0], (e) => !e.enabled, 'disabled', 10_000);
      expect(disabled.disabledReason).toMatch(/120 hours/);
      expect(disabled.pendingDeliveries).toBe(0);
    } finally {
      receiver.answer = previous;
    }
  });

  it('is managed by ADMINs only, and its feed read by the office and integrations', async () => {
    const { gql, token } = await organization('Guarded Pools');
    const office = caller(server, (await tokenFor(server, token, 'OFFICE')).token);
    const api = caller(server, (await tokenFor(server, token, 'API')).token);
    const tech = caller(server, (await tokenFor(server, token, 'TECHNICIAN')).token);
    const refused = await office(CREATE, { input: { url: `${receiver.url}/nope` } });
    expect(refused.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await api(ENDPOINTS)).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(ok(await gql(ENDPOINTS)).webhookEndpoints).toEqual([]);
    ok(await gql(CUSTOMER, { input: { lastName: 'Quispe' } }));
    expect(ok(await api(EVENTS, { first: 5 })).infiniteEvents.edges).toHaveLength(1);
    expect(ok(await office(EVENTS, { first: 5 })).infiniteEvents.edges).toHaveLength(1);
    expect((await tech(EVENTS, { first: 5 })).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });

  it('refuses a bad endpoint with the field named, and changes nothing', async () => {
    const { gql } = await organization('Strict Pools');
    const bad = async (input: Record<string, unknown>, message: RegExp) => {
      const res = await gql(CREATE, { input });
      expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(res.errors?.[0]?.message).toMatch(message);
    };
    await bad({ url: 'not a url' }, /url: is not a URL/);
    await bad({ url: 'ftp://hooks.example.com/x' }, /url: must be http or https/);
    await bad({ url: 'https://user:pw@hooks.example.com/x' }, /url: may not carry a user name/);
    await bad({ url: 'https://hooks.example.com/x', eventTypes: ['customer.created', 'customer.exploded'] }, /unknown event type customer\.exploded/);
    await bad({ url: `https://hooks.example.com/${'x'.repeat(2000)}` }, /url.*at most 2000/);
    expect(ok(await gql(ENDPOINTS)).webhookEndpoints).toEqual([]);
    const hook = await endpoint(gql, '/strict');
    const res = await gql(`mutation($id: ID!) { updateWebhookEndpoint(id: $id, input: {url: "gopher://x", description: "changed"}) { id } }`, { id: hook.id });
    expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(ok(await gql(`{ webhookEndpoints { url description } }`)).webhookEndpoints).toEqual([{ url: `${receiver.url}/strict`, description: '/strict' }]);
    const missing = await gql(`mutation { deleteWebhookEndpoint(id: "nope") { id } }`);
    expect(missing.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    ok(await gql(`mutation($id: ID!) { deleteWebhookEndpoint(id: $id) { id } }`, { id: hook.id }));
    expect(ok(await gql(ENDPOINTS)).webhookEndpoints).toEqual([]);
  });
});
