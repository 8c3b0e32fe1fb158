import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { postEvent } from '../../server/operations/events/attempt.js';
import type { Attempt } from '../../server/storage/webhook-deliveries.js';

/**
 * Run by test/webhook-addresses.test.ts inside a network namespace of its own (`unshare -n`, with
 * only the loopback up): the delivery code with the system's resolver and connect step, nothing
 * injected, against receivers on this namespace's loopback. Prints one JSON line of results.
 * Nothing here can reach another machine: the namespace has no other interface and no route.
 */
async function listen(host: string): Promise<{ server: http.Server; port: number; connections: () => number }> {
  let connections = 0;
  const server = http.createServer((_req, res) => res.writeHead(204).end());
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { server, port: (server.address() as AddressInfo).port, connections: () => connections };
}

const attempt = (url: string): Attempt => ({
  orgId: 'org', endpointId: 'endpoint', eventSeq: 1, eventId: 'evt_netns', eventType: 'customer.created',
  occurredAt: new Date().toISOString(), data: { id: 'c1' }, attempt: 1, url, secrets: [`whsec_${Buffer.alloc(32, 1).toString('base64')}`],
});

const v4 = await listen('127.0.0.1');
const v6 = await listen('::1');
const settings = (allowPrivateAddresses: boolean) => ({ allowHttp: true, allowPrivateAddresses, attemptTimeoutMs: 3_000, connectTimeoutMs: 1_000 });
const inside = [
  `http://127.0.0.1:${v4.port}/hook`,
  `http://10.0.0.1:${v4.port}/hook`,
  'http://169.254.169.254/latest/meta-data/',
  `http://[::1]:${v6.port}/hook`,
  `http://localhost:${v4.port}/hook`,
  `http://[::ffff:127.0.0.1]:${v4.port}/hook`,
];
const refused: Record<string, string | null> = {};
for (const url of inside) refused[url] = (await postEvent(attempt(url), settings(false))).error;
const connectionsWhileRefusing = v4.connections() + v6.connections();
const allowed = await postEvent(attempt(`http://127.0.0.1:${v4.port}/hook`), settings(true));
const allowedV6 = await postEvent(attempt(`http://[::1]:${v6.port}/hook`), settings(true));
// A public address passes the check and its connection is tried: here it has nowhere to go.
const outside = await postEvent(attempt('https://93.184.216.34/hook'), settings(false));
console.log(JSON.stringify({ refused, connectionsWhileRefusing, allowed: allowed.statusCode, allowedV6: allowedV6.statusCode, connectionsAfter: v4.connections() + v6.connections(), outside: outside.error }));
v4.server.close();
v6.server.close();
