/**
 * Loads the workload into the peer's store before its server starts (as our bench seeds its
 * store before starting the server): `pouch-seed.mjs <folder> <documents.jsonl>`, one document
 * a line, already in CouchDB's shape (`_id`). Prints the count written.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import PouchDB from 'pouchdb';

const [folder, file] = process.argv.slice(2);
const db = new PouchDB(`${folder}/visits`);
let batch = [];
let written = 0;
const flush = async () => {
  const results = await db.bulkDocs(batch);
  const failed = results.filter((r) => r.error);
  if (failed.length) throw new Error(`seeding failed: ${JSON.stringify(failed[0])}`);
  written += batch.length;
  batch = [];
};
for await (const line of createInterface({ input: createReadStream(file) })) {
  if (!line) continue;
  batch.push(JSON.parse(line));
  if (batch.length === 1000) await flush();
}
if (batch.length) await flush();
await db.close();
console.log(JSON.stringify({ written }));
