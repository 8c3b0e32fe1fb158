import { LiveStream } from '../../client-sdk/replication/stream.js';

/**
 * Idle subscribers for the sync bench, in a process of their own so that their parsing of every
 * batch does not delay the replica whose latency is measured: `idle-streams.ts <url> <token> <n>`
 * opens n live streams, prints "ready" once all are connected, and holds them until killed.
 */
const [baseUrl, token, count] = process.argv.slice(2);
const connected: Promise<void>[] = [];
for (let i = 0; i < Number(count); i++) {
  let alive!: () => void;
  connected.push(new Promise<void>((resolve) => (alive = resolve)));
  new LiveStream({ baseUrl: baseUrl!, token: token! }, { collections: ['services'], onStatus: (up) => up && alive() }).start();
}
await Promise.all(connected);
console.log('ready');
