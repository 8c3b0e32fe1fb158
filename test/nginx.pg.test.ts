import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../server/config.js';
import { openLocalBlobStore } from '../server/storage/local-blobs.js';
import { MULTIPART_ALLOWANCE } from '../server/transports/rest/uploads.js';
import { fetchBytes, sampleFiles, uploadFile } from './fixtures/files.js';
import { caller, ok } from './support/api.js';
import { engines, openTestStore, type TestStore } from './support/engines.js';
import { openEventStream } from './support/event-stream.js';
import { NGINX, startNginx, type Nginx } from './support/nginx.js';
import { rawRequest } from './support/raw-http.js';
import { newOrganization, startTestServer, type TestServer } from './support/server.js';

/**
 * Two server processes on one store behind Debian's nginx running the repository's site config
 * (server/deploy/nginx.conf): streams, 20 MB uploads, bodies refused on their declared length,
 * timeouts above the heartbeat, and client addresses passed on, so the per-address limits count
 * the client (TRUST_PROXY names nginx). Clients use 127.0.0.2 and 127.0.0.3: other machines, as
 * far as nginx and the server can tell.
 */
const runs = fs.existsSync(NGINX) || Boolean(process.env.REQUIRE_NGINX);
const MAX_UPLOAD = 20 * 1024 * 1024;

describe.runIf(runs).each(engines)('behind nginx on %s', { timeout: 60_000 }, (engine) => {
  let store: TestStore;
  let servers: TestServer[];
  let nginx: Nginx;
  let token: string;
  const files = fs.mkdtempSync(path.join(os.tmpdir(), 'pool-shared-files-'));

  beforeAll(async () => {
    store = await openTestStore(engine);
    // One files folder for both processes, as several processes need (or S3).
    const blobs = await openLocalBlobStore(files);
    const options = { blobs, maxUploadBytes: MAX_UPLOAD, heartbeatMs: 500, http: { trustProxy: ['127.0.0.1'], authFailuresPerMinute: 3 } };
    servers = [await startTestServer(store.db, options), await startTestServer(store.db, options)];
    nginx = await startNginx(servers.map((s) => new URL(s.url).host));
    token = (await newOrganization(store.db, 'Proxied Pools')).token;
  }, 60_000);
  afterAll(async () => {
    await nginx?.close();
    for (const s of servers ?? []) await s.close();
    await store?.drop();
    fs.rmSync(files, { recursive: true, force: true });
  });

  it('the config keeps streams open past the heartbeat, waits past the request deadline, and takes 20 MB uploads', () => {
    const defaults = loadConfig({});
    const seconds = (setting: RegExp) => {
      const value = setting.exec(nginx.site)![1]!;
      return value.endsWith('h') ? Number.parseInt(value) * 3600 : Number.parseInt(value);
    };
    expect(seconds(/location = \/sync\/stream \{[^}]*proxy_read_timeout (\w+);/) * 1000).toBeGreaterThan(2.5 * defaults.sync.heartbeatMs);
    expect(seconds(/^\s*proxy_read_timeout (\w+);/m) * 1000).toBeGreaterThan(defaults.http.requestTimeoutMs);
    expect(Number.parseInt(/client_max_body_size (\d+)m;/.exec(nginx.site)![1]!) * 1024 * 1024).toBeGreaterThanOrEqual(defaults.files.maxUploadBytes + MULTIPART_ALLOWANCE);
  });

  it('GraphQL, a 20 MB upload and its signed link pass through (either process serves it), the link pointing at the proxy', async () => {
    const visit = ok(await caller(nginx, token)(`mutation { createService(input: {notes: "through nginx"}) { id } }`)).createService.id;
    const photo = await uploadFile(`${nginx.url}/services/${visit}/photos`, token, sampleFiles.jpeg(MAX_UPLOAD));
    expect(photo.status).toBe(201);
    expect(photo.body.size).toBe(MAX_UPLOAD);
    expect(photo.body.url.startsWith(`${nginx.url}/files/`)).toBe(true);
    // nginx takes turns between the processes: both serve the file.
    for (let i = 0; i < 2; i++) {
      const fetched = await fetchBytes(photo.body.url);
      expect(fetched.status).toBe(200);
      expect(fetched.bytes.length).toBe(MAX_UPLOAD);
    }
  });

  it('a body declared larger than the server takes is refused by nginx at once, in the server\'s shape', async () => {
    const declared = (route: string, type: string) =>
      rawRequest(nginx.url, `POST ${route} HTTP/1.1
        Host: 127.0.0.1
        Authorization: Bearer ${token}
        Content-Type: ${type}
        Content-Length: 10000000000`, { waitMs: 2000 });
    const answer = await declared('/services/some-visit/photos', 'multipart/form-data; boundary=x');
    expect(answer.status).toBe(413);
    expect(answer.answeredMs).toBeLessThan(2000);
    expect(JSON.parse(answer.body)).toEqual({ error: { code: 'PAYLOAD_TOO_LARGE', message: expect.any(String) } });
    // GraphQL's in GraphQL's shape, as the server answers it.
    const graphql = await declared('/graphql', 'application/json');
    expect(graphql.status).toBe(413);
    expect(graphql.answeredMs).toBeLessThan(2000);
    expect(JSON.parse(graphql.body)).toEqual({ errors: [{ message: expect.any(String), extensions: { code: 'PAYLOAD_TOO_LARGE' } }] });
    // Within nginx's limit and above the server's, the server refuses it (in its shape) at once.
    const mid = await rawRequest(nginx.url, `POST /graphql HTTP/1.1
      Host: 127.0.0.1
      Authorization: Bearer ${token}
      Content-Type: application/json
      Content-Length: 5000000`, { waitMs: 2000 });
    expect(mid.status).toBe(413);
    expect(mid.answeredMs).toBeLessThan(2000);
    expect(JSON.parse(mid.body).errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('the sync stream passes through unbuffered: heartbeats keep it open, a change arrives at once', async () => {
    const stream = await openEventStream(nginx, token, ['customers']);
    try {
      await stream.next((e) => e.type === 'RESYNC');
      // Idle for several heartbeats (500 ms here): each arrives, and the stream stays open.
      await expect.poll(() => stream.comments.filter((c) => c === 'heartbeat').length, { timeout: 5000 }).toBeGreaterThanOrEqual(4);
      expect(await Promise.race([stream.ended.then(() => 'ended'), Promise.resolve('open')])).toBe('open');
      // Writes through the proxy reach whichever process, and the stream on either hears them.
      for (const lastName of ['Streamed One', 'Streamed Two']) {
        const written = Date.now();
        ok(await caller(nginx, token)(`mutation($n: String!) { createCustomer(input: {lastName: $n}) { id } }`, { n: lastName }));
        await stream.next((e) => e.type === 'changes' && e.documents.some((d: { lastName: string }) => d.lastName === lastName), 2000);
        expect(Date.now() - written).toBeLessThan(1000);
      }
    } finally {
      stream.close();
    }
  });

  it('client addresses are passed on: failed authentication is limited per client, and a spoofed header changes nothing', async () => {
    const graphql = (from: string, bearer: string, headers: Record<string, string> = {}) =>
      send(`${nginx.url}/graphql`, from, { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', ...headers }, JSON.stringify({ query: '{ viewer { role } }' }));
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push(await graphql('127.0.0.2', `pst_guess${i}`));
    expect(statuses).toEqual([401, 401, 401, 429]);
    // Claiming another address in a header does not escape the limit: nginx sets the header itself.
    // (With another guess: a token that may be live earns its lookup from any address.)
    expect(await graphql('127.0.0.2', 'pst_guess-spoofed', { 'x-forwarded-for': '198.51.100.1' })).toBe(429);
    // Another client is not affected, and its own failures are its own.
    expect(await graphql('127.0.0.3', token)).toBe(200);
    expect(await graphql('127.0.0.3', 'pst_typo')).toBe(401);
  });
});

/** A POST from the given local address (127.0.0.x: a client machine of its own, to nginx); its status. */
function send(url: string, localAddress: string, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers, localAddress, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(body);
  });
}
