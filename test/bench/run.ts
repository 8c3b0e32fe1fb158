import { randomBytes } from 'node:crypto';
import os from 'node:os';
import pg from 'pg';
import type { Database } from '../../server/storage/db.js';
import { openStore } from '../../server/storage/open.js';
import { benchLists, printTimings } from './lists.js';
import { benchSync } from './sync.js';
import { benchBulk } from './bulk.js';
import { benchChemistry } from './chemistry.js';
import { benchScaleOut } from './scale-out.js';
import { benchOfficeApp } from './office-app.js';
import { benchStoredJson } from './stored-json.js';
import { benchStorm } from './storm.js';
import { benchCompanyOffice } from './company-office.js';
import { benchRouteFirst } from './route-first.js';
import { benchTechnicianApp } from './technician-app.js';
import { benchDocuments } from './documents.js';
import { benchStorage } from './storage.js';
import { benchTabs } from './tabs.js';
import { benchOneVisitPush } from './push-one.js';
import { benchWebhooks } from './webhooks.js';
import { benchBilling } from './billing.js';
import { benchInvoiceEmails } from './invoice-emails.js';
import { benchInvoicePdf } from './invoice-pdf.js';

/**
 * `npm run bench`: seeds a large organization and prints query latencies, on embedded PGlite and,
 * when BENCH_DATABASE_URL (or TEST_DATABASE_URL) names a PostgreSQL server, on a scratch database
 * there that is dropped afterwards. Sizes: BENCH_CUSTOMERS (100000), BENCH_SERVICES (200000),
 * BENCH_RUNS (200), BENCH_VISITS (50000, the sync benchmark's visits).
 */
const counts = {
  customers: Number(process.env.BENCH_CUSTOMERS ?? 100_000),
  services: Number(process.env.BENCH_SERVICES ?? 200_000),
};
const runs = Number(process.env.BENCH_RUNS ?? 200);
const postgresUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;

console.log(`${new Date().toISOString()} · ${os.cpus().length} × ${os.cpus()[0]?.model} · ${Math.round(os.totalmem() / 2 ** 30)} GiB · Node ${process.version}`);

async function onPglite(part: 'lists' | 'bulk'): Promise<void> {
  const db = await openStore({});
  try {
    if (part === 'lists') printTimings('PGlite (embedded, in memory)', await benchLists(db, counts, runs));
    else await benchBulk(db, 'PGlite (embedded, in memory)');
  } finally {
    await db.close();
  }
}

async function onPostgres(url: string, part: 'lists' | 'bulk'): Promise<void> {
  const name = `pool_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const target = new URL(url);
  target.pathname = `/${name}`;
  let db: Database | undefined;
  try {
    db = await openStore({ databaseUrl: target.toString() });
    const { rows } = await db.query<{ v: string }>("select current_setting('server_version') as v");
    if (part === 'lists') printTimings(`PostgreSQL ${rows[0]!.v}`, await benchLists(db, counts, runs));
    else await benchBulk(db, `PostgreSQL ${rows[0]!.v}`);
  } finally {
    await db?.close();
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

/** BENCH_ONLY=lists|sync|push|bulk|scale|storm|app|tech|route|company|docs|invoice-pdf|invoice-emails|chemistry|webhooks|billing|json|storage|tabs runs one part; BENCH_ENGINES=pglite or =postgres one engine. */
const only = process.env.BENCH_ONLY;
// The engine needs no store: it runs first, in a few seconds.
if (!only || only === 'chemistry') await benchChemistry();
const engines = (process.env.BENCH_ENGINES ?? 'pglite,postgres').split(',');
const onPg = Boolean(postgresUrl) && engines.includes('postgres');
for (const part of ['lists', 'bulk'] as const) {
  if (only && only !== part) continue;
  if (engines.includes('pglite')) await onPglite(part);
  if (onPg) await onPostgres(postgresUrl!, part);
}
if (!only || only === 'sync') {
  if (engines.includes('pglite')) await benchSync('pglite');
  if (onPg) await benchSync('postgres', postgresUrl);
}
if (!only || only === 'push') {
  if (engines.includes('pglite')) await benchOneVisitPush('pglite');
  if (onPg) await benchOneVisitPush('postgres', postgresUrl);
}
if ((!only || only === 'scale') && onPg) await benchScaleOut(postgresUrl!);
if (!only || only === 'storm') {
  if (engines.includes('pglite')) await benchStorm('pglite');
  if (onPg) for (const processes of [1, 2]) await benchStorm('postgres', postgresUrl, processes);
}
// An experiment kept reproducible: run only when asked for.
if (only === 'json' && postgresUrl) await benchStoredJson(postgresUrl);
// The office app's figures are the browser's: one engine is enough (PostgreSQL when there is one).
if (!only || only === 'app') await (onPg ? benchOfficeApp('postgres', postgresUrl) : benchOfficeApp('pglite'));
// The technician app's: one technician's phone, the embedded store as a small company runs it.
if (!only || only === 'tech') await benchTechnicianApp();
if (!only || only === 'route') await benchRouteFirst();
// The office at company scale: the browser's figures, on PostgreSQL when there is one.
if (!only || only === 'company') await (onPg ? benchCompanyOffice('postgres', postgresUrl) : benchCompanyOffice('pglite'));
// The customer's documents: quote PDFs and visit reports (the embedded store).
if (!only || only === 'docs') await benchDocuments();
// An invoice's PDF, made as each invoice email is sent (no store).
if (!only || only === 'invoice-pdf') await benchInvoicePdf();
// The replica's storage beside RxDB's Dexie storage, in the browser (no server).
if (!only || only === 'storage') await benchStorage();
// Tabs sharing one replica in the browser (no large store).
if (!only || only === 'tabs') await benchTabs();
// Events and webhooks: delivery latency (PostgreSQL) and what events cost the writes that make them (both engines).
if (!only || only === 'webhooks') await benchWebhooks(engines, onPg ? postgresUrl : undefined);
// The month's billing at company scale: drafts, finalizing, the invoice emails through the outbox.
if (!only || only === 'billing') {
  if (onPg) await benchBilling('postgres', postgresUrl);
  if (engines.includes('pglite') && (only === 'billing' || !onPg)) await benchBilling('pglite');
}
// The invoice emails' drain alone, the month queued before the server starts (PostgreSQL).
if ((!only || only === 'invoice-emails') && onPg) await benchInvoiceEmails(postgresUrl!);
if (!postgresUrl) console.log('\n(PostgreSQL skipped: set BENCH_DATABASE_URL to include it)');
