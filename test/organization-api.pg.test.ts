import { describe, expect, it } from 'vitest';
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
      expect(created.token).toMatch(/^pst_[A-Za-z0-9_-]{43}$/);
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
