import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { doOnce, pruneIdempotencyKeys } from '../server/operations/idempotency.js';
import { authenticate } from '../server/operations/auth.js';
import { loadConfig } from '../server/config.js';
import { sampleFiles } from './fixtures/files.js';
import { ok } from './support/api.js';
import { engines, openTestStore, type TestStore } from './support/engines.js';
import { gql, newOrganization, startTestServer, type TestServer } from './support/server.js';

/**
 * Requests sent with an Idempotency-Key are done once: a retry after a lost answer gets the first
 * answer (same ids) and writes nothing, whether it comes after the first or while it still runs.
 */
const CREATE_CUSTOMER = `mutation Create($input: CreateCustomerInput!) { createCustomer(input: $input) { id lastName } }`;

describe.each(engines)('Idempotency-Key on %s', (engine) => {
  let store: TestStore;
  let server: TestServer;

  beforeAll(async () => {
    store = await openTestStore(engine);
    server = await startTestServer(store.db);
  });
  afterAll(async () => {
    await server?.close();
    await store?.drop();
  });

  /** POSTs a GraphQL request with the key, as a third party's HTTP client retrying would. */
  async function keyed(token: string, key: string, query: string, variables?: Record<string, unknown>) {
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'idempotency-key': key },
      body: JSON.stringify({ query, variables }),
    });
    return { status: res.status, replayed: res.headers.get('idempotent-replayed') === 'true', body: (await res.json()) as any };
  }

  const customersNamed = async (orgId: string, lastName: string) =>
    (await store.db.query<{ id: string }>('select id from customers where org_id = $1 and last_name = $2', [orgId, lastName])).rows.map((r) => r.id);

  it('a mutation retried with its key answers the first answer and creates one customer', async () => {
    const { org, token } = await newOrganization(store.db, 'Once Pools');
    const first = await keyed(token, 'create-1', CREATE_CUSTOMER, { input: { lastName: 'Once' } });
    const again = await keyed(token, 'create-1', CREATE_CUSTOMER, { input: { lastName: 'Once' } });
    expect(first.status).toBe(200);
    expect(first.replayed).toBe(false);
    expect(again.replayed).toBe(true);
    expect(again.body).toEqual(first.body);
    expect(await customersNamed(org.id, 'Once')).toEqual([first.body.data.createCustomer.id]);
    // Without the key, the same request is a new one.
    ok(await gql(server, token, CREATE_CUSTOMER, { input: { lastName: 'Once' } }));
    expect(await customersNamed(org.id, 'Once')).toHaveLength(2);
  });

  it('the same key with a different request is refused and changes nothing', async () => {
    const { org, token } = await newOrganization(store.db, 'Reuse Pools');
    const first = await keyed(token, 'reused', CREATE_CUSTOMER, { input: { lastName: 'First' } });
    const other = await keyed(token, 'reused', CREATE_CUSTOMER, { input: { lastName: 'Second' } });
    expect(other.status).toBe(400);
    expect(other.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(other.body.errors[0].message).toMatch(/Idempotency-Key was used with a different request/);
    expect(await customersNamed(org.id, 'First')).toEqual([first.body.data.createCustomer.id]);
    expect(await customersNamed(org.id, 'Second')).toEqual([]);
  });

  it('two requests with one key at once do the work once and both get its answer', async () => {
    const { org, token } = await newOrganization(store.db, 'Racing Pools');
    const answers = await Promise.all(Array.from({ length: 4 }, () => keyed(token, 'race', CREATE_CUSTOMER, { input: { lastName: 'Racer' } })));
    const ids = await customersNamed(org.id, 'Racer');
    expect(ids).toHaveLength(1);
    for (const a of answers) expect(a.body).toEqual({ data: { createCustomer: { id: ids[0], lastName: 'Racer' } } });
    expect(answers.filter((a) => !a.replayed)).toHaveLength(1);
  });

  it('keys are per organization and per user; queries ignore them', async () => {
    const a = await newOrganization(store.db, 'Key Pools A');
    const b = await newOrganization(store.db, 'Key Pools B');
    const inA = await keyed(a.token, 'shared-key', CREATE_CUSTOMER, { input: { lastName: 'Shared' } });
    const inB = await keyed(b.token, 'shared-key', CREATE_CUSTOMER, { input: { lastName: 'Shared' } });
    expect(inB.replayed).toBe(false);
    expect(inB.body.data.createCustomer.id).not.toBe(inA.body.data.createCustomer.id);
    const query = await keyed(a.token, 'shared-key', `query { infiniteCustomers(first: 5) { edges { node { lastName } } } }`);
    expect(query.status).toBe(200);
    expect(query.body.data.infiniteCustomers.edges).toEqual([{ node: { lastName: 'Shared' } }]);
  });

  it('a failing field is answered again as it failed; the fields before it stay done once', async () => {
    const { org, token } = await newOrganization(store.db, 'Partial Pools');
    const both = `mutation($ok: CreateCustomerInput!, $bad: ID!) {
      created: createCustomer(input: $ok) { id }
      deleted: deleteCustomer(id: $bad) { id }
    }`;
    const vars = { ok: { lastName: 'Partial' }, bad: 'no-such-customer' };
    const first = await keyed(token, 'partial', both, vars);
    expect(first.body.errors.map((e: any) => e.extensions.code)).toEqual(['NOT_FOUND']);
    // Both fields are non-null, so the failure of one nulls the data; the customer was created.
    expect(await customersNamed(org.id, 'Partial')).toHaveLength(1);
    const again = await keyed(token, 'partial', both, vars);
    expect(again.replayed).toBe(true);
    expect(again.body).toEqual(first.body);
    expect(await customersNamed(org.id, 'Partial')).toHaveLength(1);
  });

  it('a token or sign-in code is shown once: a replay answers null in its place, and the kept answer holds none', async () => {
    const { org, token } = await newOrganization(store.db, 'Secretive Pools');
    const CREATE_TOKEN = 'mutation($input: CreateApiTokenInput!) { createApiToken(input: $input) { token apiToken { id } } }';
    const made = await keyed(token, 'token-1', CREATE_TOKEN, { input: { name: 'Phone of Ana', role: 'TECHNICIAN' } });
    const plain = made.body.data.createApiToken.token as string;
    expect(plain.length).toBeGreaterThan(20);
    const replay = await keyed(token, 'token-1', CREATE_TOKEN, { input: { name: 'Phone of Ana', role: 'TECHNICIAN' } });
    expect(replay.replayed).toBe(true);
    expect(replay.body.data.createApiToken).toEqual({ ...made.body.data.createApiToken, token: null });

    const technicianId = ok(await gql(server, token, '{ users(role: TECHNICIAN) { id } }')).users[0].id as string;
    const CREATE_CODE = 'mutation($t: ID!) { createPhoneSignInCode(technicianId: $t) { code link expiresAt } }';
    const code = await keyed(token, 'code-1', CREATE_CODE, { t: technicianId });
    const { code: plainCode, link } = code.body.data.createPhoneSignInCode;
    expect(plainCode).toMatch(/^[A-Z]{5}-[A-Z]{5}$/);
    const codeReplay = await keyed(token, 'code-1', CREATE_CODE, { t: technicianId });
    expect(codeReplay.replayed).toBe(true);
    expect(codeReplay.body.data.createPhoneSignInCode).toEqual({ code: null, link: null, expiresAt: code.body.data.createPhoneSignInCode.expiresAt });

    const kept = (await store.db.query<{ answer: unknown }>('select answer from idempotency_keys where org_id = $1', [org.id])).rows.map((r) => JSON.stringify(r.answer));
    expect(kept.length).toBeGreaterThanOrEqual(2);
    for (const answer of kept) {
      expect(answer).not.toContain(plain);
      expect(answer).not.toContain(plainCode);
      expect(answer).not.toContain(link);
    }
  });

  it('keys are kept for the retention and pruned after it: then the key is new again', async () => {
    const { org, token } = await newOrganization(store.db, 'Expiring Pools');
    await keyed(token, 'old-key', CREATE_CUSTOMER, { input: { lastName: 'Kept' } });
    expect(await pruneIdempotencyKeys(store.db, 24, new Date(Date.now() + 23 * 3_600_000))).toBe(0);
    expect((await keyed(token, 'old-key', CREATE_CUSTOMER, { input: { lastName: 'Kept' } })).replayed).toBe(true);
    expect(await pruneIdempotencyKeys(store.db, 24, new Date(Date.now() + 25 * 3_600_000))).toBeGreaterThanOrEqual(1);
    const after = await keyed(token, 'old-key', CREATE_CUSTOMER, { input: { lastName: 'Kept' } });
    expect(after.replayed).toBe(false);
    expect(await customersNamed(org.id, 'Kept')).toHaveLength(2);
  });

  it('a retry while the first still runs waits for it; past the wait it is told to retry, never run twice', async () => {
    const { org, token } = await newOrganization(store.db, 'Slow Pools');
    const ctx = { db: store.db, blobs: server.blobs, viewer: await authenticate(store.db, `Bearer ${token}`, { ...loadConfig({}).auth, now: () => new Date() }) };
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let runs = 0;
    const work = async () => {
      runs++;
      await held;
      return { answer: { done: runs }, keep: true };
    };
    const first = doOnce(ctx, 'slow', 'hash-1', work);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const retry = doOnce(ctx, 'slow', 'hash-1', work, 200).then(
      (answered) => answered,
      (error: { kind?: string }) => error.kind,
    );
    if (engine === 'postgres') {
      // PostgreSQL: the retry waits on the first's uncommitted key for at most its wait.
      expect(await retry).toBe('CONFLICT');
      release();
    } else {
      // The embedded store runs one transaction at a time: the retry waits its turn.
      setTimeout(release, 300);
      expect(await retry).toEqual({ answer: { done: 1 }, replayed: true });
    }
    expect(await first).toEqual({ answer: { done: 1 }, replayed: false });
    expect(runs).toBe(1);
    expect(org.id).toBeTruthy();
  });

  it('an upload retried with its key stores one photo', async () => {
    const { token } = await newOrganization(store.db, 'Photo Pools');
    const customerId = ok(await gql(server, token, CREATE_CUSTOMER, { input: { lastName: 'Pictured' } })).createCustomer.id;
    const quoteId = ok(await gql(server, token, `mutation($input: CreateQuoteInput!) { createQuote(input: $input) { id } }`, { input: { customerId, title: 'Tiles' } })).createQuote.id;
    const bytes = sampleFiles.png();
    const upload = async (key: string, caption: string) => {
      const form = new FormData();
      form.append('caption', caption);
      form.append('file', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'tiles.png');
      const res = await fetch(`${server.url}/quotes/${quoteId}/photos`, { method: 'POST', body: form, headers: { authorization: `Bearer ${token}`, 'idempotency-key': key } });
      return { status: res.status, replayed: res.headers.get('idempotent-replayed') === 'true', body: (await res.json()) as any };
    };
    const first = await upload('photo-1', 'Cracked tile');
    const again = await upload('photo-1', 'Cracked tile');
    expect(first.status).toBe(201);
    expect([again.status, again.replayed, again.body.id]).toEqual([201, true, first.body.id]);
    const other = await upload('photo-1', 'Another caption');
    expect([other.status, other.body.error.code]).toEqual([400, 'BAD_USER_INPUT']);
    const photos = ok(await gql(server, token, `query($id: ID!) { quote(selector: {id: $id}) { photos { id } } }`, { id: quoteId })).quote.photos;
    expect(photos).toEqual([{ id: first.body.id }]);
  });
});
