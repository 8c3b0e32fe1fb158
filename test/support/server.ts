import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { pino } from 'pino';
import { createApp } from '../../server/app.js';
import { provisionOrganization } from '../../server/operations/organization.js';
import type { Database } from '../../server/storage/db.js';

/**
 * A real HTTP server on 127.0.0.1, port 0, over a test store, with helpers to call it.
 */
export interface TestServer {
  url: string;
  db: Database;
  close(): Promise<void>;
}

export const PLATFORM_ADMIN_TOKEN = 'platform-admin-token-for-tests-only';

export async function startTestServer(
  db: Database,
  config: Partial<{ platformAdminToken: string | undefined; bodyLimitBytes: number }> = {},
): Promise<TestServer> {
  const { app } = createApp({
    db,
    config: { platformAdminToken: PLATFORM_ADMIN_TOKEN, bodyLimitBytes: 100_000, ...config },
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    db,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export interface GraphQLResponse<T = Record<string, any>> {
  status: number;
  data?: T | null;
  errors?: { message: string; path?: string[]; extensions?: { code?: string; [k: string]: unknown } }[];
}

/** POSTs a GraphQL document as JSON, the way a third party would. */
export async function gql<T = Record<string, any>>(
  server: { url: string },
  token: string | null,
  query: string,
  variables?: Record<string, unknown>,
): Promise<GraphQLResponse<T>> {
  const res = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json, application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as Omit<GraphQLResponse<T>, 'status'>;
  return { status: res.status, ...body };
}

/** The codes of a response's errors, for compact assertions. */
export function errorCodes(response: GraphQLResponse): (string | undefined)[] {
  return (response.errors ?? []).map((e) => e.extensions?.code);
}

/** A new organization and its ADMIN token. */
export async function newOrganization(db: Database, name = 'Test Pools') {
  const { organization, token } = await provisionOrganization(db, { name });
  return { org: organization, token };
}
