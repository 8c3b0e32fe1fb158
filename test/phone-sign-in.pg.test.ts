import { hashToken } from '../server/operations/auth.js';
import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { caller, ok, tokenFor } from './support/api.js';
import { engines, type TestStore } from './support/engines.js';
import { useTestServer } from './support/fixture.js';
import { redeemCode, signInCodeFor } from './support/phones.js';
import { gql, newOrganization, type TestServer } from './support/server.js';
import { pullChanges } from './support/sync.js';

/**
 * A phone signed in by a one-time code, and tokens that stop working (server/operations/README-auth.md).
 * The server's clock is moved by the tests (the `clock` the app is given): ten minutes or a month
 * pass at once, for sign-in codes and for tokens alike.
 */
const DAY = 86_400_000;
/** Low enough to spend in a test; the refusals of tokens below come from 127.0.0.1 and stay under it. */
const FAILURES_PER_MINUTE = 20;

describe.each(engines)('phone sign-in codes and token expiry on %s', (engine) => {
  let store: TestStore;
  let server: TestServer;
  let admin: string;
  let technician: { id: string; name: string };
  let skew = 0;
  /** Each test acts from addresses of its own (X-Forwarded-For from loopback is believed), so failures counted in one do not spill into another. */
  let address = 0;
  const from = () => ({ 'x-forwarded-for': `203.0.113.${++address}` });

  useTestServer(
    engine,
    { organization: 'Code Pools', server: { clock: () => new Date(Date.now() + skew), http: { authFailuresPerMinute: FAILURES_PER_MINUTE, rateLimitPerMinute: 0 } } },
    async (t) => {
      ({ store, server, token: admin } = t);
      const user = ok(await caller(server, admin)('mutation { createApiToken(input: {name: "Sam Carter", role: TECHNICIAN}) { apiToken { userId } } }')).createApiToken.apiToken;
      technician = { id: user.userId, name: 'Sam Carter' };
    },
  );
  beforeEach(() => {
    skew = 0;
  });

  const tokens = async () => ok(await caller(server, admin)('{ apiTokens { id name role userId revokedAt } }')).apiTokens as { id: string; name: string; role: string; userId: string }[];
  const codeRows = async () => (await store.db.query<{ n: number }>('select count(*)::int as n from phone_sign_in_codes')).rows[0]!.n;
  const viewerOf = async (token: string) => gql(server, token, '{ viewer { role user { id } } }');

  it("makes a code the phone trades once for a token of its own, named for the phone; the code is kept only as a hash", async () => {
    const made = await signInCodeFor(server, admin, technician.id);
    expect(made.code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{5}-[BCDFGHJKLMNPQRSTVWXZ]{5}$/);
    expect(made.link).toBe(`${server.url}/tech/#code=${made.code}`);
    const minutes = (Date.parse(made.expiresAt) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(9.5);
    expect(minutes).toBeLessThanOrEqual(10);
    const stored = (await store.db.query<{ code_hash: string }>('select code_hash from phone_sign_in_codes')).rows.map((r) => r.code_hash);
    expect(stored).toContain(createHash('sha256').update(made.code.replace('-', '')).digest('hex'));
    expect(JSON.stringify(stored)).not.toContain(made.code.replace('-', ''));

    const before = await tokens();
    // Typed on the phone: any case, with spaces instead of the dash.
    const redeemed = await redeemCode(server, { code: made.code.toLowerCase().replace('-', ' '), deviceName: 'Pixel 8' }, from());
    expect(redeemed.status).toBe(201);
    expect(redeemed.headers.get('cache-control')).toBe('no-store');
    expect(redeemed.body.token).toMatch(/^pst_/);
    expect(redeemed.body.apiToken).toMatchObject({ name: "Sam Carter's phone (Pixel 8)", role: 'TECHNICIAN', userId: technician.id, revokedAt: null });
    expect(ok(await viewerOf(redeemed.body.token)).viewer).toEqual({ role: 'TECHNICIAN', user: { id: technician.id } });
    expect((await tokens()).length).toBe(before.length + 1);

    // Once only.
    const again = await redeemCode(server, { code: made.code, deviceName: 'Another phone' }, from());
    expect(again).toMatchObject({ status: 401, body: { error: { code: 'UNAUTHENTICATED', reason: 'code-used' } } });
    expect(again.body.token).toBeUndefined();
    expect((await tokens()).length).toBe(before.length + 1);
  });

  it('works only until it expires (PHONE_SIGN_IN_CODE_MINUTES, 10 by default)', async () => {
    const late = await signInCodeFor(server, admin, technician.id);
    const inTime = await signInCodeFor(server, admin, technician.id);
    skew = 9 * 60_000;
    expect((await redeemCode(server, { code: inTime.code }, from())).status).toBe(201);
    skew = 10 * 60_000 + 1000;
    const expired = await redeemCode(server, { code: late.code }, from());
    expect(expired).toMatchObject({ status: 401, body: { error: { code: 'UNAUTHENTICATED', reason: 'code-expired' } } });
    expect(expired.body.error.message).toContain('10 minutes');
  });

  it('of two phones racing with one code, exactly one signs in', async () => {
    const { code } = await signInCodeFor(server, admin, technician.id);
    const before = (await tokens()).length;
    const answers = await Promise.all(Array.from({ length: 4 }, (_, i) => redeemCode(server, { code, deviceName: `Phone ${i}` }, from())));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 401, 401, 401]);
    for (const lost of answers.filter((a) => a.status === 401)) expect(lost.body.error.reason).toBe('code-used');
    expect((await tokens()).length).toBe(before + 1);
  });

  it('a wrong code is a failed authentication: the address that keeps guessing is refused with 429, while another address signs in', async () => {
    const guesser = from();
    const { code } = await signInCodeFor(server, admin, technician.id);
    // Each guess a new code (the same wrong code again is told so without a lookup, and spends nothing).
    const letters = 'BCDFGHJKLMNPQRSTVWXZ';
    const guesses = Array.from({ length: 400 }, (_, i) => `${code.slice(0, 9)}${letters[i % 20]}${letters[Math.floor(i / 20)]}`).filter((guess) => guess !== code);
    const answers = [];
    for (const guess of guesses.slice(0, FAILURES_PER_MINUTE + 1)) answers.push(await redeemCode(server, { code: guess }, guesser));
    expect(new Set(answers.slice(0, FAILURES_PER_MINUTE).map((a) => `${a.status} ${a.body.error.reason}`))).toEqual(new Set(['401 code-unknown']));
    expect(answers.at(-1)).toMatchObject({ status: 429, body: { error: { code: 'RATE_LIMITED' } } });
    expect(Number(answers.at(-1)!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await redeemCode(server, { code }, from())).status).toBe(201);
  });

  it('is made by ADMIN or OFFICE for a technician of their own organization; anything else is refused and changes nothing', async () => {
    const office = (await tokenFor(server, admin, 'OFFICE')).token;
    const made = await signInCodeFor(server, office, technician.id);
    expect(made.code).toMatch(/^[A-Z]{5}-[A-Z]{5}$/);
    const officeUser = ok(await caller(server, admin)('{ users(role: OFFICE) { id } }')).users[0].id;
    const other = await newOrganization(store.db, 'Other Pools');
    const rows = await codeRows();
    const tried = [
      [(await tokenFor(server, admin, 'TECHNICIAN')).token, technician.id, 'FORBIDDEN'],
      [(await tokenFor(server, admin, 'API')).token, technician.id, 'FORBIDDEN'],
      [admin, officeUser, 'BAD_USER_INPUT'],
      [admin, 'no-such-user', 'NOT_FOUND'],
      [other.token, technician.id, 'NOT_FOUND'],
    ] as const;
    for (const [token, technicianId, code] of tried) {
      const answer = await gql(server, token, 'mutation($t: ID!) { createPhoneSignInCode(technicianId: $t) { code } }', { t: technicianId });
      expect(answer.errors?.[0]?.extensions?.code, `${code} for ${technicianId}`).toBe(code);
    }
    expect(await codeRows()).toBe(rows);
  });

  it('refuses a malformed redemption with 400 naming the field, without using the code', async () => {
    const { code } = await signInCodeFor(server, admin, technician.id);
    const before = (await tokens()).length;
    for (const body of [{}, { code: 42 }, { code, deviceName: 'x'.repeat(101) }, { code, extra: true }]) {
      const answer = await redeemCode(server, body, from());
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.code).toBe('BAD_USER_INPUT');
    }
    expect((await tokens()).length).toBe(before);
    expect((await redeemCode(server, { code }, from())).status).toBe(201);
  });

  it('refuses a revoked token and an unknown one, saying which, on GraphQL, REST and sync', async () => {
    const { code } = await signInCodeFor(server, admin, technician.id);
    const phone = (await redeemCode(server, { code, deviceName: 'Lost phone' }, from())).body;
    ok(await caller(server, admin)('mutation($id: ID!) { revokeApiToken(id: $id) { id } }', { id: phone.apiToken.id }));
    const revoked = await viewerOf(phone.token);
    expect(revoked.status).toBe(401);
    expect(revoked.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'revoked' });
    expect(await pullChanges(server, phone.token, 'customers')).toMatchObject({ status: 401, body: { error: { code: 'UNAUTHENTICATED', reason: 'revoked' } } });
    const unknown = await pullChanges(server, `${phone.token.slice(0, -4)}AAAA`, 'customers');
    expect(unknown).toMatchObject({ status: 401, body: { error: { code: 'UNAUTHENTICATED', reason: 'unknown' } } });
  });

  it('stops a phone or office token unused for TOKEN_IDLE_DAYS (30 by default), counted from its last use; ADMIN and API tokens do not expire', async () => {
    const phone = (await redeemCode(server, { code: (await signInCodeFor(server, admin, technician.id)).code }, from())).body.token as string;
    const unusedPhone = (await redeemCode(server, { code: (await signInCodeFor(server, admin, technician.id)).code }, from())).body.token as string;
    const office = (await tokenFor(server, admin, 'OFFICE')).token;
    const api = (await tokenFor(server, admin, 'API')).token;
    const freshAdmin = (await tokenFor(server, admin, 'ADMIN')).token;
    expect((await viewerOf(phone)).status).toBe(200);
    // Used every four weeks, the phone goes on working for months.
    // (A use is recorded after its answer, off the request's path: wait for it before the next jump.)
    const lastUsed = async () => (await store.db.query<{ t: string }>('select max(last_used_at) as t from api_tokens where token_hash = $1', [hashToken(phone)])).rows[0]!.t;
    for (const weeks of [4, 8, 12]) {
      skew = weeks * 7 * DAY;
      expect((await viewerOf(phone)).status, `after ${weeks} weeks`).toBe(200);
      await expect.poll(async () => Date.parse(await lastUsed()), { timeout: 5000 }).toBeGreaterThanOrEqual(Date.now() + skew - 60_000);
    }
    // Unused since they were made (about now), the others are 12 weeks old.
    expect((await viewerOf(unusedPhone)).errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'expired' });
    expect((await viewerOf(office)).errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'expired' });
    expect((await pullChanges(server, unusedPhone, 'customers')).body.error).toMatchObject({ reason: 'expired', message: expect.stringContaining('TOKEN_IDLE_DAYS') });
    expect((await viewerOf(api)).status).toBe(200);
    expect((await viewerOf(freshAdmin)).status).toBe(200);
    // The office's token list says when each token expires unless used (null: never by disuse).
    const listed = ok(await caller(server, admin)('{ apiTokens { role lastUsedAt revokedAt idleExpiresAt } }')).apiTokens as { role: string; lastUsedAt: string | null; revokedAt: string | null; idleExpiresAt: string | null }[];
    for (const t of listed) {
      if (t.role === 'ADMIN' || t.role === 'API' || t.revokedAt) expect(t.idleExpiresAt).toBeNull();
      else if (t.lastUsedAt) expect(Date.parse(t.idleExpiresAt!) - Date.parse(t.lastUsedAt)).toBe(30 * DAY);
    }
    // 30 days after its last use (12 weeks), the phone expires too; a day before, it still works.
    skew = (12 * 7 + 29) * DAY;
    expect((await viewerOf(phone)).status).toBe(200);
    skew = (12 * 7 + 29 + 31) * DAY;
    expect((await viewerOf(phone)).errors?.[0]?.extensions).toMatchObject({ reason: 'expired' });
  });
});
