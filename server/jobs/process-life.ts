import os from 'node:os';
import type { Engine } from '../storage/db.js';

/**
 * A name this server process keeps across restarts, so a starting process knows which jobs its own
 * earlier life held (and takes them back at once, instead of waiting for their heartbeat to go
 * stale). Undefined when there is none that two live processes could not share:
 *
 * - the embedded store is held by one process at a time (the data folder's lock), so every job
 *   it finds claimed was claimed by an earlier life of the one process that may hold it;
 * - on PostgreSQL several processes share the jobs; no two live processes listen on one address
 *   and port of one machine (the server does not share its port, as Node's cluster module would),
 *   so machine, address and port name a process's lives. With PORT=0 (any free port) there is no
 *   such name, and jobs are taken over by heartbeat only.
 */
export function processLife(engine: Engine, listen: { host: string; port: number }): string | undefined {
  if (engine === 'pglite') return 'embedded-store';
  return listen.port ? `${os.hostname()}:${listen.host}:${listen.port}` : undefined;
}
