/** Helpers for the bulk-operations REST interface. */
export async function startBulk(server: { url: string }, token: string, body: unknown, idempotencyKey?: string) {
  const res = await fetch(`${server.url}/bulk-operations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

export async function getBulk(server: { url: string }, token: string, id: string) {
  const res = await fetch(`${server.url}/bulk-operations/${id}`, { headers: { authorization: `Bearer ${token}` } });
  return (await res.json()) as any;
}

const DONE = new Set(['SUCCEEDED', 'FAILED', 'CANCELLED', 'PARTIAL']);

/** Polls an operation until it ends (or the time runs out). */
export async function waitForBulk(server: { url: string }, token: string, id: string, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const op = await getBulk(server, token, id);
    if (DONE.has(op.status)) return op;
    if (Date.now() > until) throw new Error(`operation ${id} still ${op.status}: ${JSON.stringify(op)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
