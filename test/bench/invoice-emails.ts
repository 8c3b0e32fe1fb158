import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { lastMonth } from '../../server/demo-billing.js';
import { issueToken } from '../../server/operations/auth.js';
import { queueInvoiceEmail } from '../../server/operations/billing/invoice-emails.js';
import { provisionOrganization } from '../../server/operations/organization.js';
import { openStore } from '../../server/storage/open.js';
import { endsWithThisProcess, spawnBuiltServer, spawnServerBundle, waitForOutput } from '../support/child.js';
import { benchDatabase } from './bench-database.js';
import { cpuSeconds, draftIds, graphql, peakRssMb, percentile, readWhile, rssMb, seconds, seedBillableMonth, smtpSink, until } from './billing.js';

/**
 * The invoice emails' drain alone (BENCH_ONLY=invoice-emails, PostgreSQL): the billing bench's
 * month (BENCH_BILLING_CUSTOMERS customers, 2,000 by default), its drafts made and finalized by the
 * built server with autoSendInvoices off, then every invoice's email queued in one transaction (as
 * finalizing would queue it), and the built server started again with an SMTP sink: from its
 * "listening" until the sink holds one email per invoice, with a GraphQL read every 250 ms
 * meanwhile, the server's CPU and RSS. In the billing bench the emails drain while finalizing
 * runs, so there its figure is finalizing's; here it is the worker's own.
 */
const CUSTOMERS = Number(process.env.BENCH_BILLING_CUSTOMERS ?? 2_000);
const DEADLINE_MS = 30 * 60_000;

export async function benchInvoiceEmails(postgresUrl: string): Promise<void> {
  const folder = await mkdtemp(path.join(tmpdir(), 'bench-invoice-emails-'));
  const { url: databaseUrl, dropDatabase } = await benchDatabase(postgresUrl, 'pool_bench_invoice_emails');
  const sink = await smtpSink();
  const env = { PORT: '0', DATA_DIR: path.join(folder, 'data'), SEED_DEMO_ORG: 'false', LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0', REQUEST_TIMEOUT_MS: '600000', DATABASE_URL: databaseUrl! };
  let child: ChildProcess | undefined;
  const start = async (build: boolean, extra: Record<string, string> = {}) => {
    child = endsWithThisProcess(build ? await spawnBuiltServer({ ...env, ...extra }) : spawnServerBundle({ ...env, ...extra }));
    const url = /listening on (http:\/\/\S+)/.exec(await waitForOutput(child, /listening on (http:\/\/\S+)/, 120_000))![1]!;
    child.stderr!.on('data', (chunk: Buffer) => process.stderr.write(`  server: ${chunk}`));
    return url;
  };
  const stop = async () => {
    child?.kill('SIGTERM');
    if (child) await new Promise((resolve) => child!.once('exit', resolve));
    child = undefined;
  };
  try {
    const db = await openStore({ databaseUrl });
    const { organization, token: admin } = await provisionOrganization(db, { name: 'Valley Pools' });
    const technicians: string[] = [];
    for (let i = 0; i < Math.ceil(CUSTOMERS / 65); i++) technicians.push((await issueToken(db, organization.id, { name: `Technician ${i + 1}`, role: 'TECHNICIAN' })).apiToken.userId);
    const month = lastMonth(Date.now());
    await seedBillableMonth(db, organization.id, technicians, CUSTOMERS, month);

    // The month billed and finalized with no email queued.
    let url = await start(true);
    await graphql(url, admin, 'mutation($s: UpdateOrganizationSettingsInput!) { updateOrganizationSettings(input: $s) { invoicePrefix } }', {
      s: { autoSendInvoices: false, chemicalBilling: 'UNIT_PRICE', invoiceDueDays: 30, invoicePrefix: 'VP-' },
    });
    const { generateInvoices: run } = await graphql<{ generateInvoices: { id: string } }>(url, admin, 'mutation($i: GenerateInvoicesInput!) { generateInvoices(input: $i) { id } }', {
      i: { periodStart: month.start, periodEnd: month.end },
    });
    await until("the month's run", DEADLINE_MS, async () => {
      const { bulkOperation } = await graphql<{ bulkOperation: { status: string } }>(url, admin, 'query($id: ID!) { bulkOperation(id: $id) { status } }', { id: run.id });
      return !['QUEUED', 'RUNNING'].includes(bulkOperation.status);
    });
    const ids = await draftIds(url, admin);
    for (let i = 0; i < ids.length; i += 100) await graphql(url, admin, 'mutation($i: FinalizeInvoicesInput!) { finalizeInvoices(input: $i) { id } }', { i: { ids: ids.slice(i, i + 100) } });
    await stop();
    const viewer = { orgId: organization.id, userId: 'bench', role: 'ADMIN' as const, tokenId: 'bench' };
    await db.transaction(async (tx) => {
      for (const id of ids) await queueInvoiceEmail(tx, { viewer }, id);
    });
    await db.close();

    // The drain.
    const load = (await import('node:os')).loadavg()[0]!.toFixed(1);
    const started = performance.now();
    url = await start(false, { SMTP_URL: sink.url, EMAIL_FROM: 'billing@valley-pools.example' });
    const listening = performance.now();
    const pid = child!.pid!;
    const reads = readWhile(url, admin);
    let rssSum = 0;
    let rssN = 0;
    await until('the invoice emails', DEADLINE_MS, async () => {
      rssSum += await rssMb(pid);
      rssN++;
      return sink.count() >= ids.length;
    }, 500);
    const drainMs = performance.now() - listening;
    const latencies = await reads.stop();
    const cpu = await cpuSeconds(pid);
    console.log(`\nInvoice emails drained alone (postgres, load ${load} at the start): ${ids.length} invoices queued, the server started in ${seconds(listening - started)}`);
    console.log(
      `  ${sink.count()} emails with PDFs (${(sink.bytes() / 2 ** 20).toFixed(0)} MiB) in ${seconds(drainMs)} from listening: ${(ids.length / (drainMs / 1000)).toFixed(1)} a second, ` +
        `${((13_000 * drainMs) / ids.length / 60_000).toFixed(1)} min at 13,000 (target 15 min); server CPU ${cpu.toFixed(1)} s (main thread and PDF thread)`,
    );
    console.log(
      `  GraphQL read (open invoices, first 20) while draining: p50 ${percentile(latencies, 0.5).toFixed(0)} ms, p99 ${percentile(latencies, 0.99).toFixed(0)} ms over ${latencies.length} reads; ` +
        `server RSS mean ${(rssSum / Math.max(1, rssN)).toFixed(0)} MiB, peak ${(await peakRssMb(pid)).toFixed(0)} MiB`,
    );
  } finally {
    await stop();
    await sink.close();
    await dropDatabase();
    await rm(folder, { recursive: true, force: true });
  }
}
