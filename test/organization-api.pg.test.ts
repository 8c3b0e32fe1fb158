import { randomBytes } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { hashToken } from '../server/operations/auth.js';
import { insertToken } from '../server/storage/tokens.js';
import { engines, type TestStore } from './support/engines.js';
import { useTestServer } from './support/fixture.js';
import { errorCodes, gql, newOrganization, type TestServer } from './support/server.js';

/** The spec's organization operations, API tokens, roles and tenancy, over HTTP. */
const ORG_FIELDS = `id name slug email phone website logo timezone currency accountingConnected
  paymentProcessorConnected createdAt updatedAt address { street city state zipCode }
  settings { invoicePrefix quotePrefix defaultTaxId autoSendInvoices invoiceDueDays emailFromName emailReplyTo }
  subscription { plan status currentPeriodEnd }`;

const ORGANIZATION = `query Organization { organization { ${ORG_FIELDS} } }`;
const UPDATE_ORGANIZATION = `mutation UpdateOrganization($input: UpdateOrganizationInput!) {
  updateOrganization(input: $input) { id name email phone website updatedAt } }`;
const UPDATE_SETTINGS = `mutation UpdateOrganizationSettings($input: UpdateOrganizationSettingsInput!) {
  updateOrganizationSettings(input: $input) { invoicePrefix quotePrefix defaultTaxId autoSendInvoices invoiceDueDays emailFromName emailReplyTo } }`;
const CREATE_TOKEN = `mutation CreateApiToken($input: CreateApiTokenInput!) {
  createApiToken(input: $input) { token apiToken { id name role userId createdAt revokedAt } } }`;
const REVOKE_TOKEN = `mutation RevokeApiToken($id: ID!) { revokeApiToken(id: $id) { id revokedAt } }`;

describe.each(engines)('organization API on %s', (engine) => {
  let store: TestStore;
  let server: TestServer;
  let admin: string;
  let orgId: string;

  useTestServer(engine, { organization: 'Sunny Pools' }, async (t) => {
    ({ store, server } = t);
    admin = t.token;
    orgId = t.org.id;
  });

  async function createToken(role: string, token = admin) {
    const res = await gql(server, token, CREATE_TOKEN, { input: { name: `${role} device`, role } });
    return res.data!.createApiToken as { token: string; apiToken: { id: string; userId: string } };
  }

  const readOrg = async () => (await gql(server, admin, ORGANIZATION)).data!.organization;

  it('organization returns the caller’s organization with every spec field', async () => {
    const res = await gql(server, admin, ORGANIZATION);
    expect(res.errors).toBeUndefined();
    expect(res.data!.organization).toMatchObject({
      id: orgId,
      name: 'Sunny Pools',
      slug: 'sunny-pools',
      timezone: 'UTC',
      currency: 'USD',
      accountingConnected: false,
      paymentProcessorConnected: false,
      settings: { invoicePrefix: 'INV-', quotePrefix: 'Q-', invoiceDueDays: 30, autoSendInvoices: false },
    });
  });

  it('updateOrganization changes the submitted fields, keeps the rest, and moves updatedAt', async () => {
    const before = await readOrg();
    const res = await gql(server, admin, UPDATE_ORGANIZATION, {
      input: { name: 'Sunny Pools LLC', phone: '555-0100', website: 'https://sunny.example' },
    });
    expect(res.errors).toBeUndefined();
    expect(res.data!.updateOrganization).toMatchObject({
      id: orgId,
      name: 'Sunny Pools LLC',
      phone: '555-0100',
      website: 'https://sunny.example',
      email: before.email,
    });
    expect(Date.parse(res.data!.updateOrganization.updatedAt)).toBeGreaterThan(Date.parse(before.updatedAt));
    const cleared = await gql(server, admin, UPDATE_ORGANIZATION, { input: { phone: null } });
    expect(cleared.data!.updateOrganization).toMatchObject({ phone: null, name: 'Sunny Pools LLC' });
  });

  it('updateOrganizationSettings merges into the settings', async () => {
    const res = await gql(server, admin, UPDATE_SETTINGS, { input: { quotePrefix: 'SQ-', invoiceDueDays: 15 } });
    expect(res.errors).toBeUndefined();
    expect(res.data!.updateOrganizationSettings).toMatchObject({
      quotePrefix: 'SQ-',
      invoiceDueDays: 15,
      invoicePrefix: 'INV-',
    });
    expect((await readOrg()).settings.quotePrefix).toBe('SQ-');
  });

  describe('bad input gets a clear error and changes nothing', () => {
    const cases: [string, string, Record<string, unknown>, RegExp][] = [
      ['an empty name', UPDATE_ORGANIZATION, { input: { name: '   ' } }, /name: must not be empty/],
      ['null for a required field', UPDATE_ORGANIZATION, { input: { name: null } }, /name/],
      ['an unknown field', UPDATE_ORGANIZATION, { input: { name: 'X', color: 'blue' } }, /color/],
      ['a wrong type', UPDATE_SETTINGS, { input: { invoiceDueDays: 'soon' } }, /Int/],
      ['an out-of-range number', UPDATE_SETTINGS, { input: { invoiceDueDays: 9999 } }, /invoiceDueDays/],
      ['an unknown time zone', UPDATE_ORGANIZATION, { input: { timezone: 'Mars/Olympus' } }, /IANA/],
      ['a bad email', UPDATE_ORGANIZATION, { input: { email: 'not-an-email' } }, /email/],
      ['an unknown default tax', UPDATE_SETTINGS, { input: { defaultTaxId: 'no-such-tax' } }, /defaultTaxId/],
    ];
    it.each(cases)('%s', async (_label, document, variables, message) => {
      const before = await readOrg();
      const res = await gql(server, admin, document, variables);
      expect(errorCodes(res)).toEqual(['BAD_USER_INPUT']);
      expect(res.errors![0]!.message).toMatch(message);
      expect(await readOrg()).toEqual(before);
    });

    it('malformed JSON', async () => {
      const before = await readOrg();
      const res = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
        body: '{"query": "mutation { updateOrganization(input: {name: \\"X\\"}) { id } }"',
      });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { errors: { extensions: { code: string } }[] };
      expect(body.errors[0]!.extensions.code).toBe('BAD_USER_INPUT');
      expect(await readOrg()).toEqual(before);
    });

    it('an oversized body', async () => {
      const before = await readOrg();
      const res = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
        body: JSON.stringify({
          query: 'mutation U($input: UpdateOrganizationInput!) { updateOrganization(input: $input) { id } }',
          variables: { input: { name: 'x'.repeat(200_000) } },
        }),
      });
      expect(res.status).toBe(413);
      const body = (await res.json()) as { errors: { extensions: { code: string } }[] };
      expect(body.errors[0]!.extensions.code).toBe('PAYLOAD_TOO_LARGE');
      expect(await readOrg()).toEqual(before);
    });
  });

  describe('roles', () => {
    it('a technician reads the organization but cannot change it or manage tokens', async () => {
      const tech = await createToken('TECHNICIAN');
      const read = await gql(server, tech.token, ORGANIZATION);
      expect(read.data!.organization.id).toBe(orgId);
      const before = await readOrg();
      const write = await gql(server, tech.token, UPDATE_ORGANIZATION, { input: { name: 'Hijacked' } });
      expect(errorCodes(write)).toEqual(['FORBIDDEN']);
      const mint = await gql(server, tech.token, CREATE_TOKEN, { input: { name: 'x', role: 'ADMIN' } });
      expect(errorCodes(mint)).toEqual(['FORBIDDEN']);
      expect(await readOrg()).toEqual(before);
    });

    it('the viewer query names the token’s user and role', async () => {
      const office = await createToken('OFFICE');
      const res = await gql(server, office.token, '{ viewer { role user { id name role } organization { id } } }');
      expect(res.data!.viewer).toEqual({
        role: 'OFFICE',
        user: { id: office.apiToken.userId, name: 'OFFICE device', role: 'OFFICE' },
        organization: { id: orgId },
      });
    });
  });

  describe('tokens', () => {
    it('a created token works until it is revoked, then gets 401 UNAUTHENTICATED', async () => {
      const created = await createToken('API');
      expect(created.token).toMatch(new RegExp(`^pst_${orgId}_[A-Za-z0-9_-]{43}$`));
      expect((await gql(server, created.token, ORGANIZATION)).status).toBe(200);
      const revoked = await gql(server, admin, REVOKE_TOKEN, { id: created.apiToken.id });
      expect(revoked.data!.revokeApiToken.revokedAt).toBeTruthy();
      const after = await gql(server, created.token, ORGANIZATION);
      expect(after.status).toBe(401);
      expect(errorCodes(after)).toEqual(['UNAUTHENTICATED']);
    });

    it('stores only a hash of each token', async () => {
      const created = await createToken('API');
      const { rows } = await store.db.query('select * from api_tokens where id = $1', [created.apiToken.id]);
      expect(JSON.stringify(rows[0])).not.toContain(created.token.slice(4));
    });

    it("a further token for an existing technician (their new phone) is that technician, and is revoked alone", async () => {
      const tech = await createToken('TECHNICIAN');
      const phone = await gql(server, admin, CREATE_TOKEN, { input: { name: 'Phone', role: 'TECHNICIAN', userId: tech.apiToken.userId } });
      const created = phone.data!.createApiToken;
      expect(created.apiToken).toMatchObject({ name: 'Phone', role: 'TECHNICIAN', userId: tech.apiToken.userId });
      const viewer = await gql(server, created.token, '{ viewer { user { id } } }');
      expect(viewer.data!.viewer.user.id).toBe(tech.apiToken.userId);
      await gql(server, admin, REVOKE_TOKEN, { id: created.apiToken.id });
      expect((await gql(server, created.token, ORGANIZATION)).status).toBe(401);
      expect((await gql(server, tech.token, ORGANIZATION)).status).toBe(200);

      // Another role than the user's, or a user of another organization: refused, nothing created.
      const before = (await gql(server, admin, '{ apiTokens { id } }')).data!.apiTokens.length;
      const wrongRole = await gql(server, admin, CREATE_TOKEN, { input: { name: 'x', role: 'ADMIN', userId: tech.apiToken.userId } });
      expect(errorCodes(wrongRole)).toEqual(['BAD_USER_INPUT']);
      const other = await newOrganization(store.db, 'Other Pools');
      const foreign = await gql(server, other.token, CREATE_TOKEN, { input: { name: 'x', role: 'TECHNICIAN', userId: tech.apiToken.userId } });
      expect(errorCodes(foreign)).toEqual(['NOT_FOUND']);
      expect((await gql(server, admin, '{ apiTokens { id } }')).data!.apiTokens.length).toBe(before);
    });

    it("a token carries its organization and is found among that organization's tokens alone; one issued before still works", async () => {
      const created = await createToken('API');
      // Every statement the sign-in sends about tokens names the organization: one shard on a
      // distributed store (the touch of last_used_at included: the token is new).
      const sent: string[] = [];
      const original = store.db.query.bind(store.db);
      const spy = vi.spyOn(store.db, 'query').mockImplementation(((sql: string, params?: unknown[]) => {
        sent.push(sql);
        return original(sql, params);
      }) as typeof store.db.query);
      try {
        expect((await gql(server, created.token, ORGANIZATION)).status).toBe(200);
        await expect.poll(() => sent.some((q) => /update api_tokens set last_used_at/.test(q))).toBe(true);
      } finally {
        spy.mockRestore();
      }
      const aboutTokens = sent.filter((q) => /\bapi_tokens\b/.test(q));
      expect(aboutTokens.length).toBeGreaterThanOrEqual(2);
      for (const statement of aboutTokens) expect(statement).toMatch(/\bt?\.?org_id = \$1/);
      // The organization written into a token grants nothing: another's id in it is an unknown token.
      const other = await newOrganization(store.db, 'Elsewhere Pools');
      const forged = created.token.replace(orgId, other.org.id);
      expect((await gql(server, forged, ORGANIZATION)).status).toBe(401);
      // A token issued before tokens carried their organization (pst_ and 43 characters) still signs in.
      const legacy = `pst_${randomBytes(32).toString('base64url')}`;
      const user = (await gql(server, admin, '{ viewer { user { id } } }')).data!.viewer.user.id;
      await insertToken(store.db, orgId, { id: `legacy-${Date.now()}`, name: 'Old laptop', userId: user, tokenHash: hashToken(legacy) });
      expect((await gql(server, legacy, ORGANIZATION)).data!.organization.id).toBe(orgId);
    });

    it('last_used_at is written at most once a minute per token, not on every request', async () => {
      const created = await createToken('API');
      const version = async () => (await store.db.query<{ v: string; used: string | null }>('select xmin::text as v, last_used_at as used from api_tokens where org_id = $1 and id = $2', [orgId, created.apiToken.id])).rows[0]!;
      expect((await gql(server, created.token, ORGANIZATION)).status).toBe(200);
      await expect.poll(async () => (await version()).used).not.toBeNull();
      const written = await version();
      await Promise.all(Array.from({ length: 10 }, () => gql(server, created.token, ORGANIZATION)));
      for (let i = 0; i < 5; i++) expect((await gql(server, created.token, ORGANIZATION)).status).toBe(200);
      // The row was not rewritten (a write makes a new row version, with a new xmin).
      expect(await version()).toEqual(written);
      // A minute later (the server's clock moved on) it is written once more.
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        vi.setSystemTime(Date.now() + 2 * 60_000);
        expect((await gql(server, created.token, ORGANIZATION)).status).toBe(200);
        await expect.poll(async () => (await version()).v).not.toBe(written.v);
      } finally {
        vi.useRealTimers();
      }
    });

    it('a wrong token gets 401', async () => {
      const res = await gql(server, 'pst_not-a-real-token', ORGANIZATION);
      expect(res.status).toBe(401);
      expect(errorCodes(res)).toEqual(['UNAUTHENTICATED']);
    });
  });

  describe('two organizations', () => {
    it('neither can read or change the other’s organization or tokens', async () => {
      const other = await newOrganization(store.db, 'Rival Pools');
      const mine = await createToken('API');

      const theirView = await gql(server, other.token, ORGANIZATION);
      expect(theirView.data!.organization.id).toBe(other.org.id);

      const theirTokens = await gql(server, other.token, '{ apiTokens { id } }');
      const ids = theirTokens.data!.apiTokens.map((t: { id: string }) => t.id);
      expect(ids).not.toContain(mine.apiToken.id);

      const revoke = await gql(server, other.token, REVOKE_TOKEN, { id: mine.apiToken.id });
      expect(errorCodes(revoke)).toEqual(['NOT_FOUND']);
      expect(revoke.errors![0]!.message).toBe(`API token ${mine.apiToken.id} was not found`);
      const missing = await gql(server, other.token, REVOKE_TOKEN, { id: 'does-not-exist' });
      expect(missing.errors![0]!.message).toBe('API token does-not-exist was not found');
      expect((await gql(server, mine.token, ORGANIZATION)).status).toBe(200);

      await gql(server, other.token, UPDATE_ORGANIZATION, { input: { name: 'Rival Renamed' } });
      expect((await readOrg()).name).not.toBe('Rival Renamed');
    });
  });

  it('users lists the organization\'s people by name, by role when asked; a technician may not list them', async () => {
    const tech = await createToken('TECHNICIAN');
    await createToken('OFFICE');
    const other = await newOrganization(store.db, 'Other Pools');
    await gql(server, other.token, CREATE_TOKEN, { input: { name: 'Elsewhere', role: 'TECHNICIAN' } });

    const all = await gql(server, admin, `{ users { id name role } }`);
    expect(all.errors).toBeUndefined();
    const names = all.data!.users.map((u: { name: string }) => u.name);
    expect(names).toEqual([...names].sort());
    expect(names).not.toContain('Elsewhere');
    const technicians = await gql(server, admin, `{ users(role: TECHNICIAN) { id role } }`);
    expect(technicians.data!.users.map((u: { role: string }) => u.role)).toEqual(technicians.data!.users.map(() => 'TECHNICIAN'));
    expect(technicians.data!.users.map((u: { id: string }) => u.id)).toContain(tech.apiToken.userId);

    expect(errorCodes(await gql(server, tech.token, `{ users { id } }`))).toEqual(['FORBIDDEN']);
    expect(new Set(errorCodes(await gql(server, admin, `{ users(role: JANITOR) { id } }`)))).toEqual(new Set(['BAD_USER_INPUT']));
  });
});
