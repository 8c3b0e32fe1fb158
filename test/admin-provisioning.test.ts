import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countOrganizations } from '../server/storage/organizations.js';
import { openTestStore, type TestStore } from './support/engines.js';
import { gql, PLATFORM_ADMIN_TOKEN, startTestServer, type TestServer } from './support/server.js';

/** POST /admin/organizations: how a real operator starts. */
let store: TestStore;
let server: TestServer;
let disabled: TestServer;

beforeAll(async () => {
  store = await openTestStore('pglite');
  server = await startTestServer(store.db);
  disabled = await startTestServer(store.db, { platformAdminToken: undefined });
});
afterAll(async () => {
  await server?.close();
  await disabled?.close();
  await store?.drop();
});

function provision(body: string, token: string | null = PLATFORM_ADMIN_TOKEN, target = server) {
  return fetch(`${target.url}/admin/organizations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body,
  });
}

describe('POST /admin/organizations', () => {
  it('creates an organization and returns its admin token, which works at once', async () => {
    const res = await provision(JSON.stringify({ name: 'Crystal Clear Pools' }));
    expect(res.status).toBe(201);
    const body = (await res.json()) as { organization: { id: string; slug: string }; token: string };
    expect(body.organization).toMatchObject({ name: 'Crystal Clear Pools', slug: 'crystal-clear-pools' });
    const me = await gql(server, body.token, '{ organization { id } viewer { role } }');
    expect(me.data).toEqual({ organization: { id: body.organization.id }, viewer: { role: 'ADMIN' } });
  });

  it('gives a second organization of the same name its own slug', async () => {
    const first = await (await provision(JSON.stringify({ name: 'Twin Pools' }))).json();
    const second = await (await provision(JSON.stringify({ name: 'Twin Pools' }))).json();
    expect([first.organization.slug, second.organization.slug]).toEqual(['twin-pools', 'twin-pools-2']);
  });

  const rejected: [string, string, string | null, number, string][] = [
    ['no token', '{"name":"A"}', null, 401, 'UNAUTHENTICATED'],
    ['a wrong token', '{"name":"A"}', 'not-the-platform-token', 401, 'UNAUTHENTICATED'],
    ['an organization token instead of the platform token', '{"name":"A"}', 'pst_x', 401, 'UNAUTHENTICATED'],
    ['malformed JSON', '{"name": "A"', PLATFORM_ADMIN_TOKEN, 400, 'BAD_USER_INPUT'],
    ['an empty name', '{"name": "  "}', PLATFORM_ADMIN_TOKEN, 400, 'BAD_USER_INPUT'],
    ['a missing name', '{}', PLATFORM_ADMIN_TOKEN, 400, 'BAD_USER_INPUT'],
    ['a wrong type', '{"name": 42}', PLATFORM_ADMIN_TOKEN, 400, 'BAD_USER_INPUT'],
    ['an unknown field', '{"name": "A", "plan": "FREE"}', PLATFORM_ADMIN_TOKEN, 400, 'BAD_USER_INPUT'],
    ['an oversized body', JSON.stringify({ name: 'x'.repeat(200_000) }), PLATFORM_ADMIN_TOKEN, 413, 'PAYLOAD_TOO_LARGE'],
  ];
  it.each(rejected)('refuses %s and creates nothing', async (_label, body, token, status, code) => {
    const before = await countOrganizations(store.db);
    const res = await provision(body, token);
    expect(res.status).toBe(status);
    const payload = (await res.json()) as { error: { code: string; message: string } };
    expect(payload.error.code).toBe(code);
    expect(payload.error.message.length).toBeGreaterThan(5);
    expect(await countOrganizations(store.db)).toBe(before);
  });

  it('is absent (404) when PLATFORM_ADMIN_TOKEN is not configured', async () => {
    const before = await countOrganizations(store.db);
    const res = await provision('{"name":"A"}', PLATFORM_ADMIN_TOKEN, disabled);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    expect(await countOrganizations(store.db)).toBe(before);
  });

  it('answers unknown routes with a JSON NOT_FOUND', async () => {
    const res = await fetch(`${server.url}/no/such/route`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'Route GET /no/such/route was not found' } });
  });
});
