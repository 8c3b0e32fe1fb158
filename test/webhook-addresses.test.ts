import { spawn, spawnSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressRefusal } from '../server/operations/events/addresses.js';
import { MAX_ANSWER_BYTES, postEvent, type DeliveryNetwork } from '../server/operations/events/attempt.js';
import { checkEndpointUrl, STRICT_POLICY } from '../server/operations/events/endpoints.js';
import type { Attempt } from '../server/storage/webhook-deliveries.js';
import { finished, ROOT } from './support/child.js';

/**
 * Never to the inside network. Every test here either refuses before any connection is made
 * (the resolver and the connect step are injected, and the connect step fails the test if it is
 * reached), talks to receivers on the loopback, or runs in a network namespace of its own with
 * only the loopback (`unshare -n`), where even a wrong refusal could reach nothing.
 */
const attempt = (url: string): Attempt => ({
  orgId: 'org-1',
  endpointId: 'endpoint-1',
  eventSeq: 1,
  eventId: 'evt_0123',
  eventType: 'customer.created',
  occurredAt: '2026-11-30T12:00:00.000Z',
  data: { id: 'c1' },
  attempt: 1,
  url,
  secrets: [`whsec_${Buffer.alloc(32, 3).toString('base64')}`],
});

/** A network whose names resolve as the test says and whose connect step only records that it was reached. */
function fakeNetwork(names: Record<string, string[] | (() => string[])>) {
  const connects: { url: string; address: string | null }[] = [];
  const network: DeliveryNetwork = {
    resolve: async (hostname) => {
      const entry = names[hostname];
      const addresses = typeof entry === 'function' ? entry() : entry;
      if (!addresses) throw new Error(`getaddrinfo ENOTFOUND ${hostname}`);
      return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    },
    request: (url, options) => {
      // What Node's connect step would be told: the address the lookup answers.
      let address: string | null = null;
      (options.lookup as unknown as (h: string, o: object, cb: (e: unknown, a: string) => void) => void)?.(url.hostname, {}, (_e, a) => (address = a));
      connects.push({ url: url.toString(), address });
      const request = new EventEmitter() as http.ClientRequest;
      Object.assign(request, { end: () => setImmediate(() => request.emit('error', new Error('test network: nothing is connected'))), destroy: () => request });
      return request;
    },
  };
  return { network, connects };
}

const strict = { allowHttp: false, allowPrivateAddresses: false, attemptTimeoutMs: 2_000, connectTimeoutMs: 1_000 };

describe('the address rule', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.1.20', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.100.100.200', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['::1', 'loopback'],
    ['fd00:ec2::254', 'uniqueLocal'],
    ['fe80::1', 'linkLocal'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['64:ff9b::a00:1', 'rfc6052'],
    ['2002:a00:1::', '6to4'],
    ['224.0.0.1', 'multicast'],
  ])('refuses %s (%s)', (address, range) => {
    expect(addressRefusal(address)).toBe(range);
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111'])('allows the public address %s', (address) => {
    expect(addressRefusal(address)).toBeNull();
  });
});

describe('a delivery to the inside network', () => {
  it.each([
    'https://127.0.0.1/hook',
    'https://10.0.0.1/hook',
    'https://169.254.169.254/latest/meta-data/iam/security-credentials/',
    'https://[::1]/hook',
    'https://[fd00:ec2::254]/latest/meta-data/',
    'https://2130706433/hook',
    'https://internal.example/hook',
    'https://half-inside.example/hook',
  ])('to %s is refused before any connection', async (url) => {
    const { network, connects } = fakeNetwork({ 'internal.example': ['127.0.0.1'], 'half-inside.example': ['93.184.216.34', '10.0.0.1'] });
    const answer = await postEvent(attempt(url), { ...strict, network });
    expect(answer.error).toMatch(/^refused: .* (loopback|private|linkLocal|uniqueLocal) address; webhooks go to public addresses only$/);
    expect(answer.statusCode).toBeNull();
    expect(connects).toEqual([]);
  });

  it('resolves at each attempt and connects to exactly the address checked (a rebinding name is caught)', async () => {
    let lookups = 0;
    const { network, connects } = fakeNetwork({ 'rebinding.example': () => (++lookups === 1 ? ['93.184.216.34'] : ['127.0.0.1']) });
    const first = await postEvent(attempt('https://rebinding.example/hook'), { ...strict, network });
    expect(first.error).toBe('test network: nothing is connected');
    expect(connects).toEqual([{ url: 'https://rebinding.example/hook', address: '93.184.216.34' }]);
    const second = await postEvent(attempt('https://rebinding.example/hook'), { ...strict, network });
    expect(second.error).toMatch(/^refused: rebinding\.example resolves to 127\.0\.0\.1, which is a loopback address/);
    expect(connects).toHaveLength(1);
    expect(lookups).toBe(2);
  });

  it('refuses plain http unless WEBHOOK_ALLOW_HTTP', async () => {
    const { network, connects } = fakeNetwork({ 'hooks.example': ['93.184.216.34'] });
    expect((await postEvent(attempt('http://hooks.example/x'), { ...strict, network })).error).toBe('refused: http:// URLs are not delivered to (https only)');
    expect(connects).toEqual([]);
    expect((await postEvent(attempt('http://hooks.example/x'), { ...strict, allowHttp: true, network })).error).toBe('test network: nothing is connected');
    expect(connects).toHaveLength(1);
  });

  it('fails an attempt whose connection is not made in time', async () => {
    const network: DeliveryNetwork = {
      resolve: async () => [{ address: '93.184.216.34', family: 4 }],
      request: () => {
        // A connection that never completes, as a dead network would leave it.
        const request = new EventEmitter() as http.ClientRequest;
        Object.assign(request, { end: () => request.emit('socket', new EventEmitter()), destroy: () => request });
        return request;
      },
    };
    const started = Date.now();
    const answer = await postEvent(attempt('https://slow.example/x'), { ...strict, connectTimeoutMs: 200, network });
    expect(answer.error).toBe('no connection within 200 ms');
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('is refused when the URL is made, too, for a literal inside address or a non-https URL', () => {
    expect(() => checkEndpointUrl('https://10.0.0.1/x', STRICT_POLICY)).toThrow('url: 10.0.0.1 is a private address; webhooks go to public addresses only');
    expect(() => checkEndpointUrl('https://[::1]/x', STRICT_POLICY)).toThrow(/loopback/);
    expect(() => checkEndpointUrl('http://hooks.example/x', STRICT_POLICY)).toThrow(/must be https/);
    expect(checkEndpointUrl('https://hooks.example/x#frag', STRICT_POLICY)).toBe('https://hooks.example/x');
    expect(checkEndpointUrl('http://127.0.0.1:8080/x', { allowHttp: true, allowPrivateAddresses: true })).toBe('http://127.0.0.1:8080/x');
  });
});

describe('a delivery to a receiver on the loopback (private addresses allowed, as in development)', () => {
  let server: http.Server;
  let url: string;
  const seen: string[] = [];
  let bodyWritten = 0;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      seen.push(req.url!);
      if (req.url === '/redirect') return void res.writeHead(302, { location: '/elsewhere' }).end();
      if (req.url === '/silent') return; // accepts, never answers
      if (req.url === '/huge') {
        // 50 MB of answer: the delivery reads 64 KB of it and hangs up.
        res.writeHead(200);
        const chunk = Buffer.alloc(64 * 1024, 120);
        const more = () => {
          while (bodyWritten < 50 * 1024 * 1024 && !res.destroyed) {
            bodyWritten += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', more);
          }
          res.end();
        };
        return more();
      }
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  const loose = { allowHttp: true, allowPrivateAddresses: true, attemptTimeoutMs: 2_000, connectTimeoutMs: 1_000 };

  it('follows no redirect', async () => {
    const answer = await postEvent(attempt(`${url}/redirect`), loose);
    expect(answer).toMatchObject({ statusCode: 302, error: 'HTTP 302: redirects are not followed' });
    expect(seen.filter((p) => p !== '/redirect')).not.toContain('/elsewhere');
  });

  it('gives up on a receiver that never answers at the deadline', async () => {
    const started = Date.now();
    const answer = await postEvent(attempt(`${url}/silent`), { ...loose, attemptTimeoutMs: 300 });
    expect(answer).toMatchObject({ statusCode: null, error: 'no answer within 300 ms' });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it(`reads at most ${MAX_ANSWER_BYTES / 1024} KB of an answer`, async () => {
    const answer = await postEvent(attempt(`${url}/huge`), loose);
    expect(answer).toMatchObject({ statusCode: 200, error: null });
    await new Promise((r) => setTimeout(r, 200));
    expect(bodyWritten).toBeLessThan(50 * 1024 * 1024);
  });
  it('keeps a connection for the next attempts to the same address, and closes one whose answer it cut off', async () => {
    const connections = new Set<unknown>();
    const count = (socket: unknown) => connections.add(socket);
    server.on('connection', count);
    try {
      for (let i = 0; i < 10; i++) expect(await postEvent(attempt(`${url}/ok-${i}`), loose)).toMatchObject({ statusCode: 204, error: null });
      // At most one made (none if an earlier test's answered attempt left one kept).
      expect(connections.size).toBeLessThanOrEqual(1);
      const kept = connections.size;
      await postEvent(attempt(`${url}/huge`), loose);
      expect(await postEvent(attempt(`${url}/after-huge`), loose)).toMatchObject({ statusCode: 204, error: null });
      // The connection the 64 KB cut ended is not given to the next attempt: a new one is made.
      expect(connections.size).toBe(kept + 1);
    } finally {
      server.off('connection', count);
    }
  });

  it('makes the attempt again on a new connection when the receiver closes a kept one as it is reused', async () => {
    // Each connection answers its first request and hangs up on the next, as a receiver whose idle
    // timeout ends just as the connection is reused does.
    let connections = 0;
    const racing = net.createServer((socket) => {
      connections++;
      let requests = 0;
      socket.on('data', (chunk) => {
        if (!chunk.toString('latin1').startsWith('POST ')) return;
        if (++requests === 1) socket.write('HTTP/1.1 204 No Content\r\nConnection: keep-alive\r\n\r\n');
        else socket.destroy();
      });
    });
    await new Promise<void>((resolve) => racing.listen(0, '127.0.0.1', resolve));
    const at = `http://127.0.0.1:${(racing.address() as AddressInfo).port}/hook`;
    try {
      expect(await postEvent(attempt(at), loose)).toMatchObject({ statusCode: 204, error: null });
      expect(await postEvent(attempt(at), loose)).toMatchObject({ statusCode: 204, error: null });
      expect(connections).toBe(2);
    } finally {
      await new Promise((r) => racing.close(r));
    }
  });
});

describe('in a network namespace of its own (only the loopback)', () => {
  /** How to run a command in a new network namespace: as root, or through sudo without a password; null when neither works. */
  const isolator = (): string[] | null => {
    if (process.getuid?.() === 0 && spawnSync('unshare', ['-n', 'true']).status === 0) return ['unshare', '-n'];
    if (spawnSync('sudo', ['-n', 'unshare', '-n', 'true']).status === 0) return ['sudo', '-n', 'unshare', '-n'];
    return null;
  };
  const required = process.env.REQUIRE_NETNS === '1' || process.env.REQUIRE_NETNS === 'true';

  it('refuses 127.0.0.1, 10.0.0.1, 169.254.169.254, ::1 and a name of the loopback with the real resolver and connect step, and reaches nothing outside', async (ctx) => {
    const command = isolator();
    if (!command) {
      if (required) throw new Error('REQUIRE_NETNS is set but this process cannot make a network namespace (unshare -n needs root, or sudo without a password)');
      ctx.skip('skipped: making a network namespace (unshare -n) needs root or sudo without a password; set REQUIRE_NETNS=1 to make this a failure');
      return;
    }
    const script = path.join(ROOT, 'test/support/netns-delivery.ts');
    const child = spawn(command[0]!, [...command.slice(1), 'sh', '-c', `ip link set lo up && exec "${process.execPath}" --import tsx "${script}"`], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    // A delivery that never settles must not leave the process running after the test gives up.
    const killer = setTimeout(() => child.kill('SIGKILL'), 50_000);
    const { code, stdout, stderr } = await finished(child).finally(() => clearTimeout(killer));
    expect(code, stderr).toBe(0);
    const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
      refused: Record<string, string | null>;
      connectionsWhileRefusing: number;
      allowed: number | null;
      allowedV6: number | null;
      connectionsAfter: number;
      outside: string | null;
    };
    for (const [url, error] of Object.entries(result.refused)) expect(error, url).toMatch(/^refused: /);
    expect(result.refused[Object.keys(result.refused).find((u) => u.includes('localhost'))!]).toMatch(/localhost resolves to 127\.0\.0\.1, which is a loopback address/);
    expect(result.connectionsWhileRefusing).toBe(0);
    // The receivers were there all along: allowed, the same deliveries arrive.
    expect(result.allowed).toBe(204);
    expect(result.allowedV6).toBe(204);
    expect(result.connectionsAfter).toBe(2);
    expect(result.outside).toMatch(/ENETUNREACH|EHOSTUNREACH|no connection within/);
  });
});
