import { describe, expect, it } from 'vitest';
import { caller, ok } from './support/api.js';
import { engines } from './support/engines.js';
import { useTestServer } from './support/fixture.js';
import { openEventStream } from './support/event-stream.js';
import { type TestServer } from './support/server.js';
import { pullChanges, pushChanges } from './support/sync.js';

const METRICS_TOKEN = 'metrics-token-for-tests-0123';

/** What an operator's Prometheus scrapes. */
describe.each(engines)('GET /metrics on %s', (engine) => {
  let server: TestServer;
  let token: string;

  useTestServer(engine, { organization: 'Metered Pools', server: { http: { metricsToken: METRICS_TOKEN } } }, async (t) => {
    ({ server } = t);
    token = t.token;
  });

  async function scrape(): Promise<string> {
    const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    return res.text();
  }

  /** The value of one series, e.g. value(text, 'pool_sync_pulls_total{collection="customers"}'). */
  function value(text: string, series: string): number {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line ? Number(line.slice(series.length + 1)) : NaN;
  }

  it('is guarded by METRICS_TOKEN', async () => {
    expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
  });

  it('counts requests by route template (never raw ids), GraphQL operations by name, and sync traffic per collection', async () => {
    const gql = caller(server, token);
    const id = ok(await gql(`mutation NewCustomer { createCustomer(input: {lastName: "Metric"}) { id } }`)).createCustomer.id;
    ok(await gql(`mutation Rename($id: ID!) { updateCustomer(id: $id, input: {lastName: "Metrics"}) { id } }`, { id }));
    await fetch(`${server.url}/bulk-operations/${id}`, { headers: { authorization: `Bearer ${token}` } });
    expect((await pullChanges(server, token, 'customers')).status).toBe(200);
    const pushed = await pushChanges(server, token, 'customers', [{ assumedMasterState: null, newDocumentState: { id: crypto.randomUUID(), lastName: 'Pushed' } }]);
    expect(pushed.status).toBe(200);
    const stream = await openEventStream(server, token);
    try {
      await stream.next((e) => e.type === 'RESYNC'); // subscribed
      const text = await scrape();
      expect(value(text, 'pool_http_requests_total{route="/sync/:collection/pull",method="GET",status="200"}')).toBe(1);
      expect(value(text, 'pool_http_requests_total{route="/bulk-operations/:id",method="GET",status="404"}')).toBe(1);
      expect(text).not.toContain(id);
      expect(text).toMatch(/pool_http_request_duration_seconds_bucket\{le="0.1",route="\/graphql",method="POST"\} \d/);
      expect(value(text, 'pool_graphql_operations_total{operation="NewCustomer",type="mutation",outcome="ok"}')).toBe(1);
      expect(value(text, 'pool_graphql_operations_total{operation="Rename",type="mutation",outcome="ok"}')).toBe(1);
      expect(value(text, 'pool_sync_pulls_total{collection="customers"}')).toBe(1);
      expect(value(text, 'pool_sync_pulled_rows_total{collection="customers"}')).toBe(1);
      expect(value(text, 'pool_sync_pushes_total{collection="customers"}')).toBe(1);
      expect(value(text, 'pool_sync_pushed_rows_total{collection="customers"}')).toBe(1);
      expect(value(text, 'pool_live_subscribers')).toBe(1);
      expect(value(text, 'pool_listen_reconnects_total')).toBe(0);
      expect(value(text, 'pool_bulk_operations{status="QUEUED"}')).toBe(0);
      expect(value(text, 'pool_bulk_queue_age_seconds')).toBe(0);
      expect(value(text, 'pool_process_resident_memory_bytes')).toBeGreaterThan(10_000_000);
      if (engine === 'postgres') expect(value(text, 'pool_db_pool_connections{state="open"}')).toBeGreaterThan(0);
      else expect(text).not.toContain('pool_db_pool_connections{');
    } finally {
      stream.close();
    }
    await expect.poll(async () => value(await scrape(), 'pool_live_subscribers')).toBe(0);
  });
});
