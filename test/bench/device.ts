import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { createPoolClient } from '../../client-sdk/index.js';

/**
 * A device on its own, for its memory: a fresh process that runs one initial sync of visits with
 * the SDK (RxDB memory storage, as the sync bench's device) and prints its peak RSS, so the figure
 * is the replica's and not the bench's. Run by sync.ts: `device.ts <baseUrl> <token>`, with the
 * SDK's default page size unless PULL_BATCH_SIZE says otherwise.
 */
const [baseUrl, token] = process.argv.slice(2);
const client = await createPoolClient({
  baseUrl: baseUrl!,
  token: token!,
  collections: ['services'],
  name: 'bench-device',
  storage: getRxStorageMemory() as never,
  ...(process.env.PULL_BATCH_SIZE ? { pullBatchSize: Number(process.env.PULL_BATCH_SIZE) } : {}),
});
const start = performance.now();
client.sync.start();
await client.sync.awaitInSync();
const seconds = (performance.now() - start) / 1000;
const visits = await client.db.collections.services!.count().exec();
await client.close();
console.log(JSON.stringify({ seconds, visits, peakRssMb: process.resourceUsage().maxRSS / 1024 }));
