import http from 'node:http';
import { randomUUID } from 'node:crypto';
import zlib from 'node:zlib';
import { createParser } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { caller, ok } from './support/api.js';
import { engines } from './support/engines.js';
import { useTestServer } from './support/fixture.js';
import { type TestServer } from './support/server.js';
import { pushChanges } from './support/sync.js';

/**
 * What a client on a slow link receives: the raw bytes on the wire (node:http, which decodes
 * nothing), decoded here the way a browser or fetch would.
 */
interface Wire {
  status: number;
  encoding: string | undefined;
  bytes: number;
  text: string;
}

function fetchRaw(url: string, token: string, acceptEncoding: string | null, init: { method?: string; body?: string } = {}): Promise<Wire> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (acceptEncoding !== null) headers['accept-encoding'] = acceptEncoding;
    if (init.body) headers['content-type'] = 'application/json';
    const req = http.request(url, { method: init.method ?? 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        const encoding = res.headers['content-encoding'];
        resolve({ status: res.statusCode ?? 0, encoding, bytes: raw.length, text: decode(raw, encoding).toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

function decode(raw: Buffer, encoding: string | undefined): Buffer {
  if (encoding === 'br') return zlib.brotliDecompressSync(raw);
  if (encoding === 'gzip') return zlib.gunzipSync(raw);
  if (encoding === 'deflate') return zlib.inflateSync(raw);
  return raw;
}

function visit(customerId: string, i: number) {
  return {
    id: randomUUID(),
    customerId,
    startTime: new Date(Date.now() - i * 60_000).toISOString(),
    notes: `Visit ${i}: brushed walls, emptied skimmer baskets, backwashed the filter.`,
    chemicalReadings: { freeChlorine: 2 + (i % 3), ph: 7.4, totalAlkalinity: 90 + (i % 20) },
    photos: [],
  };
}

describe.each(engines)('compression on %s', (engine) => {
  let server: TestServer;
  let token: string;
  let customerId: string;

  useTestServer(engine, { organization: 'Gzip Pools' }, async (t) => {
    ({ server } = t);
    token = t.token;
    customerId = ok(await caller(server, token)(`mutation { createCustomer(input: {lastName: "Wire"}) { id } }`)).createCustomer.id;
    const rows = Array.from({ length: 300 }, (_, i) => ({ assumedMasterState: null, newDocumentState: visit(customerId, i) }));
    const pushed = await pushChanges(server, token, 'services', rows);
    expect(pushed.status).toBe(200);
    expect(pushed.body.filter((d: { _deleted: boolean }) => d._deleted)).toEqual([]);
  });

  it('a sync pull comes as brotli or gzip, as asked, and decodes to exactly the uncompressed answer', async () => {
    const url = `${server.url}/sync/services/pull?checkpoint=0&limit=1000`;
    const plain = await fetchRaw(url, token, null);
    const br = await fetchRaw(url, token, 'gzip, deflate, br');
    const gzip = await fetchRaw(url, token, 'gzip');
    expect(plain.encoding).toBeUndefined();
    expect(br.encoding).toBe('br');
    expect(gzip.encoding).toBe('gzip');
    expect(JSON.parse(plain.text).documents).toHaveLength(300);
    expect(br.text).toBe(plain.text);
    expect(gzip.text).toBe(plain.text);
    // JSON of similar documents compresses well; anything less means compression is not working.
    expect(br.bytes).toBeLessThan(plain.bytes / 4);
    expect(gzip.bytes).toBeLessThan(plain.bytes / 4);
  });

  it('a GraphQL answer is compressed too', async () => {
    const query = JSON.stringify({ query: '{ infiniteServices(first: 100, selector: {}) { edges { node { id notes } } } }' });
    const graphql = await fetchRaw(`${server.url}/graphql`, token, 'gzip', { method: 'POST', body: query });
    expect(graphql.encoding).toBe('gzip');
    expect(JSON.parse(graphql.text).data.infiniteServices.edges).toHaveLength(100);
  });

  it('a CSV export streams compressed and decodes to the full file', async () => {
    const create = `mutation($input: CreateQuoteInput!) { createQuote(input: $input) { id } }`;
    for (let i = 0; i < 60; i++) {
      const lineItems = [{ description: 'Weekly service', quantity: 4, unitPrice: 45 }];
      ok(await caller(server, token)(create, { input: { customerId, title: `Quote ${i}`, lineItems } }));
    }
    const plain = await fetchRaw(`${server.url}/quotes/export/csv`, token, null);
    const br = await fetchRaw(`${server.url}/quotes/export/csv`, token, 'br');
    expect(br.encoding).toBe('br');
    expect(br.text).toBe(plain.text);
    expect(br.text.trim().split('\n')).toHaveLength(61);
    expect(br.bytes).toBeLessThan(plain.bytes / 2);
  });

  it('the live stream stays live behind the compressor: sent plain, each event at once', async () => {
    const received: unknown[] = [];
    const parser = createParser({ onEvent: (e) => received.push(JSON.parse(e.data)) });
    const req = http.get(`${server.url}/sync/stream?collections=customers`, { headers: { authorization: `Bearer ${token}`, 'accept-encoding': 'gzip, br' } });
    const response = await new Promise<http.IncomingMessage>((resolve) => req.on('response', resolve));
    try {
      // A compressor per open stream would hold ~180 KB of zlib state per idle device.
      expect(response.headers['content-encoding']).toBeUndefined();
      response.on('data', (chunk: Buffer) => parser.feed(chunk.toString('utf8')));
      await waitFor(() => received.some((e: any) => e.type === 'RESYNC'));
      const started = Date.now();
      ok(await caller(server, token)(`mutation { createCustomer(input: {lastName: "Live"}) { id } }`));
      await waitFor(() => received.some((e: any) => e.type === 'changes' && e.documents.some((d: any) => d.lastName === 'Live')));
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      req.destroy();
    }
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
