import http from 'node:http';

/**
 * Idle subscribers for the sync bench, in a process of their own: `idle-streams.ts <url> <token>
 * <n>` opens n live streams, prints "ready" once all are connected, counts the events each
 * receives, and on SIGTERM prints `{"fewest": a, "most": b}` (events per stream) and exits.
 *
 * Each stream only counts its events, as a device would whose CPU is its own. Earlier this held
 * 1,000 of the SDK's LiveStream, which parsed every event 1,000 times on the two cores the server
 * and the measured replica also use; the server's work is the same either way. The counts show
 * every stream got every event.
 */
const [baseUrl, token, count] = process.argv.slice(2);
const n = Number(count);
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
const events = new Array<number>(n).fill(0);
const CHANGES = Buffer.from('"type":"changes"');
let connected = 0;

for (let i = 0; i < n; i++) {
  http
    .get(`${baseUrl}/sync/stream?collections=services`, { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
      if (res.statusCode !== 200) fail(`stream ${i} answered ${res.statusCode}`);
      if (++connected === n) console.log('ready');
      // Change events are counted by their type; the bytes kept from the previous read catch one
      // split between two reads.
      let carry = Buffer.alloc(0);
      res.on('data', (chunk: Buffer) => {
        const bytes = Buffer.concat([carry, chunk]);
        for (let at = bytes.indexOf(CHANGES); at !== -1; at = bytes.indexOf(CHANGES, at + CHANGES.length)) events[i]! += 1;
        carry = bytes.subarray(Math.max(0, bytes.length - CHANGES.length + 1));
      });
      res.on('end', () => fail(`stream ${i} ended`));
    })
    .on('error', (error) => fail(`stream ${i}: ${error.message}`));
}

process.on('SIGTERM', () => {
  console.log(JSON.stringify({ fewest: Math.min(...events), most: Math.max(...events) }));
  process.exit(0);
});

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}
