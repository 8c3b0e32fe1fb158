import http from 'node:http';
import https from 'node:https';
import type { ResolvedAddress } from './addresses.js';

/**
 * Kept-alive connections for webhook attempts. At 100 changes a second to 10 endpoints a worker
 * makes a thousand attempts a second; one new connection (and TLS handshake) each cost the server
 * and every receiver far more than the request, and the backlog grew. A connection is kept per
 * address that an attempt's check allowed (addresses.ts): the pool's key is the checked address,
 * never the host name, so an attempt reuses only a connection to the address it checked itself,
 * and a name that now resolves elsewhere (rebinding) gets a pool of its own only if that address
 * passes too. Idle connections close after IDLE_MS, and hold no process open (Node's agent unrefs
 * them while free); the least recently used pool closes when there are more than MAX_POOLS.
 */
const IDLE_MS = 15_000;
/**
 * Connections kept idle per address. Those in use are not limited here: the worker's
 * WEBHOOK_CONCURRENCY bounds them, and an attempt waiting in a pool's queue would spend its deadline.
 */
const IDLE_PER_ADDRESS = 32;
const MAX_POOLS = 256;

const pools = new Map<string, http.Agent>();

/** The pool for connections to `target` (the checked address) for `url`'s scheme, port and TLS name. */
export function connectionPool(url: URL, target: ResolvedAddress, servername: string | undefined): http.Agent {
  const key = `${url.protocol}|${target.address}|${url.port}|${servername ?? ''}`;
  let pool = pools.get(key);
  if (pool) {
    // Map order is use order: taken out and put back, it is the most recently used.
    pools.delete(key);
  } else {
    const options = { keepAlive: true, maxFreeSockets: IDLE_PER_ADDRESS, timeout: IDLE_MS };
    pool = url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
  }
  pools.set(key, pool);
  if (pools.size > MAX_POOLS) closePool(pools.keys().next().value!);
  return pool;
}

/** Forgets a pool and closes its idle connections; one in use finishes its attempt, then idles out. */
function closePool(key: string): void {
  const pool = pools.get(key);
  pools.delete(key);
  for (const sockets of Object.values(pool?.freeSockets ?? {})) for (const socket of sockets ?? []) socket.destroy();
}
