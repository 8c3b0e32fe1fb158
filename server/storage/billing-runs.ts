import type { Queryable } from './db.js';
import { moneyOut } from './money-sql.js';

/**
 * What the month's run did for each customer it looked at (billing_run_results): the draft it
 * filled, or why it billed nothing. Written in the run's chunk transaction, so a chunk done again
 * after a crash records each customer once.
 */
export interface RunResult {
  customerId: string;
  outcome: 'BILLED' | 'SKIPPED';
  reason: string | null;
  invoiceId: string | null;
  lines: number;
  /** Minor units added to the draft by this run. */
  amount: number;
}

export async function recordRunResults(tx: Queryable, orgId: string, operationId: string, results: readonly RunResult[]): Promise<void> {
  if (!results.length) return;
  await tx.query(
    `insert into billing_run_results (org_id, operation_id, customer_id, outcome, reason, invoice_id, lines, amount)
     select $1, $2, x."customerId", x.outcome, x.reason, x."invoiceId", x.lines, x.amount
       from jsonb_to_recordset($3::jsonb) as x("customerId" text, outcome text, reason text, "invoiceId" text, lines integer, amount bigint)
     on conflict (org_id, operation_id, customer_id) do nothing`,
    [orgId, operationId, JSON.stringify(results)],
  );
}

/** A row of the run's result file: the customer's name beside what happened, money as a decimal. */
export interface RunResultRow {
  customerId: string;
  customerName: string;
  outcome: string;
  reason: string | null;
  invoiceId: string | null;
  lines: number;
  amount: number;
}

/** One page of a run's results, by customer id after `after`. */
export async function runResultPage(q: Queryable, orgId: string, operationId: string, after: string | null, limit: number): Promise<RunResultRow[]> {
  const { rows } = await q.query<RunResultRow>(
    `select r.customer_id as "customerId", trim(concat_ws(' ', c.first_name, c.last_name)) as "customerName", r.outcome, r.reason,
            r.invoice_id as "invoiceId", r.lines,
            ${moneyOut('r.amount', '$1')}::float8 as amount
       from billing_run_results r
       left join customers c on c.org_id = r.org_id and c.id = r.customer_id
      where r.org_id = $1 and r.operation_id = $2 and ($3::text is null or r.customer_id > $3)
      order by r.customer_id
      limit $4`,
    [orgId, operationId, after, limit],
  );
  return rows;
}
