import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPoolClient } from '../client-sdk/index.js';
import { visitsBetween } from '../client-sdk/app-kit/visit-range.js';
import { collectionOf } from '../client-sdk/replica/database.js';
import { lastMonth } from '../server/demo-billing.js';
import { seedDemoOrganization } from '../server/seed.js';
import { caller, ok } from './support/api.js';
import { ROOT } from './support/child.js';
import { openTestStore, type TestStore } from './support/engines.js';
import { startTestServer, type TestServer } from './support/server.js';

/**
 * The demo organization a first start creates has work on the board whatever day it is: a pool
 * company runs a weekend route, and a newcomer trying the server on a Saturday should not meet
 * "0 visits". "Today" is given to the seed (the most recent Saturday, so the office's replica
 * window holds the week), never waited for.
 */
const DAY = 86_400_000;
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

/** 11:00 UTC of the most recent Saturday (today, when today is one). */
function lastSaturday(): Date {
  const now = new Date();
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const daysSince = (now.getUTCDay() + 1) % 7; // Saturday is day 6
  return new Date(midnight - daysSince * DAY + 11 * 3_600_000);
}

describe('the demo organization on a weekend', () => {
  let store: TestStore;
  let server: TestServer;
  let token = '';
  let made = { customers: 0, visits: 0, technicians: 0 };
  let seedMs = 0;
  const saturday = lastSaturday();
  const saturdayStart = new Date(saturday.getTime() - 11 * 3_600_000);

  beforeAll(async () => {
    store = await openTestStore('pglite');
    server = await startTestServer(store.db, { http: { rateLimitPerMinute: 0 } });
    const started = performance.now();
    const demo = await seedDemoOrganization(store.db, server.blobs, { now: saturday.getTime() });
    seedMs = performance.now() - started;
    token = demo!.token;
    made = demo!.data;
  }, 300_000);
  afterAll(async () => {
    await server?.close();
    await store?.drop();
  });

  /** The visits starting on a day (UTC, the demo organization's zone), from the server. */
  async function visitsOn(day: Date): Promise<{ id: string; newTechnicianId: string; endTime: string | null }[]> {
    const { infiniteServices } = ok(
      await caller(server, token)(
        'query($from: DateTime, $to: DateTime) { infiniteServices(first: 100, selector: {filters: {startTime: {gte: $from, lt: $to}}}) { edges { node { id newTechnicianId endTime } } } }',
        { from: day.toISOString(), to: new Date(day.getTime() + DAY).toISOString() },
      ),
    );
    return infiniteServices.edges.map((e: { node: { id: string; newTechnicianId: string; endTime: string | null } }) => e.node);
  }

  it('prints what it made, as the README says: the store holds exactly that many visits', async () => {
    const { rows } = await store.db.query<{ n: number }>('select count(*)::int as n from services');
    expect(rows[0]!.n).toBe(made.visits);
    const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain(`with ${made.customers} customers, ${made.visits} visits and ${made.technicians} technicians of sample data.`);
  });

  it('every day of the week has visits: a route on Saturday, fewer on Sunday', async () => {
    const monday = new Date(saturdayStart.getTime() - 5 * DAY);
    const perDay = await Promise.all(DAYS.map((_, i) => visitsOn(new Date(monday.getTime() + i * DAY))));
    for (const [i, visits] of perDay.entries()) expect(visits.length, DAYS[i]).toBeGreaterThan(0);
    const [saturdayVisits, sundayVisits] = [perDay[5]!, perDay[6]!];
    expect(new Set(saturdayVisits.map((v) => v.newTechnicianId)).size).toBe(1);
    expect(sundayVisits.length).toBeLessThan(saturdayVisits.length);
    // Saturday's morning is done by 11:00; the afternoon is still to do.
    expect(saturdayVisits.some((v) => v.endTime !== null)).toBe(true);
    expect(saturdayVisits.some((v) => v.endTime === null)).toBe(true);
  });

  it("the office's board for Saturday reads the same visits from its replica", async () => {
    const office = await createPoolClient({ baseUrl: server.url, token, name: `demo-${Date.now()}`, retryMs: 100 });
    try {
      office.sync.start();
      await office.sync.awaitInSync({ timeoutMs: 60_000 });
      const services = collectionOf(office.db, 'services')!;
      const onBoard = await visitsBetween(services, saturdayStart.toISOString(), new Date(saturdayStart.getTime() + DAY).toISOString()).exec();
      const fromServer = await visitsOn(saturdayStart);
      expect(onBoard.length).toBeGreaterThan(0);
      expect(onBoard.map((d) => d.id).sort()).toEqual(fromServer.map((v) => v.id).sort());
    } finally {
      await office.close();
    }
  }, 90_000);

  describe('last month billed', () => {
    type Row = { id: string; number: string; status: string; total: number; amountPaid: number; balanceDue: number; partlyPaid: boolean; overdue: boolean; periodStart: string | null };
    const period = lastMonth(saturday.getTime());

    async function invoices(filter: Record<string, unknown>): Promise<Row[]> {
      const { infiniteInvoices } = ok(
        await caller(server, token)(
          'query($filter: InvoiceFilter) { infiniteInvoices(first: 100, filter: $filter) { edges { node { id number status total amountPaid balanceDue partlyPaid overdue periodStart } } } }',
          { filter },
        ),
      );
      return infiniteInvoices.edges.map((e: { node: Row }) => e.node);
    }

    it('has an invoice per customer for last month, all finalized and numbered with the demo prefix', async () => {
      const month = await invoices({ periodStart: period.start });
      expect(month.length).toBe(made.customers);
      for (const invoice of month) {
        expect(invoice.status === 'OPEN' || invoice.status === 'PAID', invoice.number).toBe(true);
        expect(invoice.number).toMatch(/^DPS-\d{4}$/);
        expect(invoice.total).toBeGreaterThan(0);
      }
      console.log(`demo seed took ${Math.round(seedMs)} ms, billing included`);
    });

    it('some invoices are paid, some partly, some still owed, and one is overdue', async () => {
      const all = await invoices({});
      const paid = all.filter((i) => i.status === 'PAID');
      const partly = all.filter((i) => i.partlyPaid);
      const owed = all.filter((i) => i.status === 'OPEN' && i.amountPaid === 0);
      expect(paid.length).toBeGreaterThanOrEqual(made.customers / 2);
      for (const i of paid) expect(i.balanceDue).toBe(0);
      expect(partly.length).toBeGreaterThanOrEqual(3);
      for (const i of partly) expect(i.amountPaid).toBeGreaterThan(0), expect(i.balanceDue).toBeGreaterThan(0);
      expect(owed.length).toBeGreaterThan(0);
      const overdue = await invoices({ overdue: true });
      expect(overdue.length).toBeGreaterThanOrEqual(1);
      for (const i of overdue) expect(i.overdue && i.status === 'OPEN' && i.balanceDue > 0).toBe(true);
    });

    it("every completed visit of last month is on exactly one live invoice line, and says INVOICED", async () => {
      const { rows } = await store.db.query<{ id: string; lines: number; billing_status: string }>(
        `select s.id, s.billing_status, (select count(*)::int from invoice_lines l where l.org_id = s.org_id and l.source_type = 'VISIT' and l.source_id = s.id and not l.released) as lines
           from services s where s.end_time is not null and s.start_time >= $1::date and s.start_time < $2::date + 1`,
        [period.start, period.end],
      );
      expect(rows.length).toBeGreaterThan(made.customers);
      for (const visit of rows) {
        expect(visit.lines, visit.id).toBe(1);
        expect(visit.billing_status, visit.id).toBe('INVOICED');
      }
      // Nothing outside last month was billed by the run.
      const { rows: outside } = await store.db.query<{ n: number }>(
        `select count(*)::int as n from invoice_lines l join services s on s.id = l.source_id
          where l.source_type = 'VISIT' and (s.start_time < $1::date or s.start_time >= $2::date + 1)`,
        [period.start, period.end],
      );
      expect(outside[0]!.n).toBe(0);
    });
  });
});
