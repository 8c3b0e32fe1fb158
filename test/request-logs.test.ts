import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../server/logger.js';
import { caller, ok } from './support/api.js';
import { openTestStore, type TestStore } from './support/engines.js';
import { fetchBytes, sampleFiles, uploadFile } from './fixtures/files.js';
import { rawRequest } from './support/raw-http.js';
import { newOrganization, startTestServer, type TestServer } from './support/server.js';

/** What the server writes to its log: nothing that works as a credential, and no false alarms. */
describe('request logs', () => {
  let store: TestStore;
  let server: TestServer;
  let token: string;
  const lines: Record<string, any>[] = [];
  let text = '';

  beforeAll(async () => {
    store = await openTestStore('pglite');
    const sink = new Writable({
      write(chunk, _encoding, done) {
        text += chunk;
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    // The production logger (its redaction included), writing here instead of stdout.
    server = await startTestServer(store.db, { logger: createLogger('info', sink) });
    token = (await newOrganization(store.db, 'Log Pools')).token;
  });
  afterAll(async () => {
    await server?.close();
    await store?.drop();
  });

  it("keeps neither a signed link's signature nor a bearer token", async () => {
    const visit = ok(await caller(server, token)(`mutation { createService(input: {notes: "log me"}) { id } }`)).createService.id;
    const photo = await uploadFile(`${server.url}/services/${visit}/photos`, token, sampleFiles.jpeg());
    expect(photo.status).toBe(201);
    const link = new URL(photo.body.url);
    const signature = link.searchParams.get('signature')!;
    expect((await fetchBytes(link.toString())).status).toBe(200);
    await expect.poll(() => lines.some((l) => l.req?.url?.startsWith('/files/'))).toBe(true);
    const logged = lines.find((l) => l.req?.url?.startsWith('/files/'))!;
    expect(logged.req.url).toMatch(/[?&]signature=\[redacted\]/);
    expect(logged.req.url).toContain(`expires=${link.searchParams.get('expires')}`);
    expect(text).not.toContain(signature);
    expect(text).not.toContain(token.slice(4));
  });

  it("keeps no report page's link, whether the link works or not", async () => {
    const secret = 'Q'.repeat(43);
    for (const path of [`/reports/org_${secret}`, `/reports/org_${secret}/photos/p1`]) {
      expect((await fetch(`${server.url}${path}`)).status).toBe(404);
    }
    await expect.poll(() => lines.filter((l) => l.req?.url?.startsWith('/reports/')).length).toBe(2);
    expect(lines.filter((l) => l.req?.url?.startsWith('/reports/')).map((l) => l.req.url)).toEqual(['/reports/[redacted]', '/reports/[redacted]/photos/p1']);
    expect(text).not.toContain(secret);
  });

  it('an upload the client cuts off midway is logged as what it is, not as an unexpected error', async () => {
    const visit = ok(await caller(server, token)(`mutation { createService(input: {notes: "cut"}) { id } }`)).createService.id;
    const before = lines.length;
    const part = `--x\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n${'a'.repeat(50_000)}`;
    // Half the declared body, then the connection drops (the raw request gives up after 300 ms).
    await rawRequest(server.url, `POST /services/${visit}/photos HTTP/1.1
      Host: 127.0.0.1
      Authorization: Bearer ${token}
      Content-Type: multipart/form-data; boundary=x
      Content-Length: 100000`, { body: part, waitMs: 300 });
    await expect.poll(() => lines.slice(before).some((l) => l.msg === 'the client closed the connection before its request arrived whole')).toBe(true);
    const told = lines.slice(before).find((l) => l.msg === 'the client closed the connection before its request arrived whole')!;
    expect(told).toMatchObject({ level: 30, method: 'POST', url: `/services/${visit}/photos` });
    expect(lines.slice(before).filter((l) => l.level >= 50)).toEqual([]);
  });
});
