import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { provisionOrganization } from '../../server/operations/organization.js';
import { readFeedPage } from '../../server/storage/table-feed.js';
import { openStore } from '../../server/storage/open.js';
import { services } from '../../server/storage/services.js';
import { seedOrganizationData } from './seed.js';

/**
 * The question: would keeping each document's JSON at write time make pulls cheaper? Reads
 * the 50,000 visits' feed as pulls do (JSON written by the database per pull), then the same
 * JSON precomputed into a table, page by page (5,000), three times each, on a scratch PostgreSQL
 * database. `BENCH_ONLY=json`.
 */
export async function benchStoredJson(postgresUrl: string): Promise<void> {
  const name = `pool_bench_json_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const target = new URL(postgresUrl);
  target.pathname = `/${name}`;
  const db = await openStore({ databaseUrl: target.toString() });
  try {
    const { organization } = await provisionOrganization(db, { name: 'JSON Bench' });
    const orgId = organization.id;
    await seedOrganizationData(db, orgId, { customers: 5000, services: 50_000, items: 10, noteLength: 600 });
    await db.query(`create table stored_docs as select org_id, _seq, row_to_json(d)::text as doc
      from services t, lateral (select ${services.jsonSelectList('t', 't.org_id')}, t._deleted as "_deleted") d`);
    await db.query('create index on stored_docs (org_id, _seq)');
    const computed: number[] = [];
    const stored: number[] = [];
    for (let run = 0; run < 3; run++) {
      let start = performance.now();
      for (let seq = 0; ; ) {
        const page = await readFeedPage(db, services as never, orgId, seq, 5000);
        if (page.count < 5000) break;
        seq = page.lastSeq!;
      }
      computed.push(performance.now() - start);
      start = performance.now();
      for (let seq = 0; ; ) {
        const { rows } = await db.query<{ _seq: number; doc: string }>(
          'select _seq, doc from stored_docs where org_id = $1 and _seq > $2 order by _seq limit 5000',
          [orgId, seq],
        );
        void `[${rows.map((r) => r.doc).join(',')}]`;
        if (rows.length < 5000) break;
        seq = rows.at(-1)!._seq;
      }
      stored.push(performance.now() - start);
    }
    const runs = (ms: number[]) => ms.map((m) => m.toFixed(0)).join(', ');
    console.log('\nJSON of 50,000 visits read as pulls read it (PostgreSQL, pages of 5,000)');
    console.log(`| written by the database per pull (what pulls do) | runs ${runs(computed)} ms |`);
    console.log(`| precomputed at write time, read as stored text | runs ${runs(stored)} ms |`);
  } finally {
    await db.close();
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}
