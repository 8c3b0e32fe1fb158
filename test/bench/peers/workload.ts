import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { RunningServer } from '../sync.js';

/**
 * The peer's copy of the sync bench's workload: every visit exactly as our server serves it (the
 * seed's deterministic rows, through our own pull), rewritten in CouchDB's shape and written one a
 * line for the peer's loader. Both sides then hold the same documents, field for field.
 */
export async function exportWorkload(server: RunningServer, file: string): Promise<number> {
  const out = createWriteStream(file);
  let checkpoint = 0;
  let written = 0;
  for (;;) {
    const res = await fetch(`${server.url}/sync/services/pull?checkpoint=${checkpoint}&limit=5000`, { headers: { authorization: `Bearer ${server.token}` } });
    if (!res.ok) throw new Error(`pull answered ${res.status}: ${await res.text()}`);
    const page = (await res.json()) as { documents: Record<string, unknown>[]; checkpoint: { seq: number } };
    for (const doc of page.documents) {
      if (!out.write(`${JSON.stringify(asCouchDocument(doc))}\n`)) await once(out, 'drain');
    }
    written += page.documents.length;
    checkpoint = page.checkpoint.seq;
    if (page.documents.length < 5000) break;
  }
  out.end();
  await once(out, 'finish');
  return written;
}

/** CouchDB names the id `_id` and reserves every other field starting with `_`. */
function asCouchDocument({ id, _deleted, ...fields }: Record<string, unknown>): Record<string, unknown> {
  if (_deleted) throw new Error(`the workload holds a deleted visit (${String(id)})`);
  const reserved = Object.keys(fields).filter((k) => k.startsWith('_'));
  if (reserved.length) throw new Error(`a visit has fields CouchDB reserves: ${reserved.join(', ')}`);
  return { _id: id, ...fields };
}
