import { SIM_ADMIN_TOKEN } from './sim-server.js';

/** What the simulation asks the server directly (not through a device): setup, office actions, checks. */
export async function graphql<T = any>(url: string, token: string, query: string, variables?: Record<string, unknown>): Promise<T> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
    signal: AbortSignal.timeout(30_000),
  });
  const body = (await res.json()) as { data?: T; errors?: { message: string }[] };
  if (body.errors?.length || !body.data) throw new Error(`GraphQL: ${JSON.stringify(body.errors)}`);
  return body.data;
}

export async function provision(url: string, name: string): Promise<{ orgId: string; token: string; userId: string }> {
  const res = await fetch(`${url}/admin/organizations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${SIM_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  const body = (await res.json()) as { organization: { id: string }; token: string; user: { id: string } };
  return { orgId: body.organization.id, token: body.token, userId: body.user.id };
}

/** Every document of a collection as the token sees it, tombstones included. */
export async function pullAll(url: string, token: string, collection: string): Promise<Record<string, any>[]> {
  const documents: Record<string, any>[] = [];
  let checkpoint = 0;
  for (;;) {
    const res = await fetch(`${url}/sync/${collection}/pull?checkpoint=${checkpoint}&limit=1000`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(30_000) });
    if (!res.ok) throw new Error(`pull ${collection}: HTTP ${res.status}`);
    const page = (await res.json()) as { documents: Record<string, any>[]; checkpoint: { seq: number } };
    documents.push(...page.documents);
    if (page.documents.length < 1000) return documents;
    checkpoint = page.checkpoint.seq;
  }
}

/** Every entry of a GraphQL connection. */
export async function allNodes<T>(url: string, token: string, field: string, selection: string): Promise<T[]> {
  const nodes: T[] = [];
  let after: string | null = null;
  for (;;) {
    const data: any = await graphql(url, token, `query($after: String) { ${field}(first: 100, after: $after) { edges { node { ${selection} } } pageInfo { hasNextPage endCursor } } }`, { after });
    nodes.push(...data[field].edges.map((e: { node: T }) => e.node));
    if (!data[field].pageInfo.hasNextPage) return nodes;
    after = data[field].pageInfo.endCursor;
  }
}

/** JSON with sorted keys, so equal values compare equal whatever their key order. */
export function canonical(value: unknown): string {
  return JSON.stringify(value ?? null, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]])) : v,
  );
}
