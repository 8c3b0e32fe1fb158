import { z } from 'zod';
import { liveCustomerIds } from '../../../storage/billable.js';
import { recordRunResults, runResultPage, type RunResultRow } from '../../../storage/billing-runs.js';
import { customers } from '../../../storage/customers.js';
import { billCustomers } from '../../billing/generate.js';
import { CalendarDate, checkedPeriod } from '../../billing/periods.js';
import { billingSettings } from '../../billing/settings.js';
import type { CsvColumn } from '../../csv.js';
import { defineKind, ids, resolveSelection, type ItemOutcome, type KindDefinition } from '../kind.js';

/**
 * The month's run (server/operations/billing/README.md): the customers of a chunk billed together
 * in its transaction (billCustomers, a few statements per chunk), with what happened to each
 * recorded in billing_run_results in the same transaction; the result file lists every customer,
 * billed or skipped and why.
 */
export const GENERATE_INVOICES = 'INVOICES_GENERATE';

const Request = z.strictObject({ periodStart: CalendarDate, periodEnd: CalendarDate, customerIds: ids.nullish() });
type Payload = { ids: string[]; periodStart: string; periodEnd: string };

const RESULT_PAGE = 1000;

const columns: readonly CsvColumn<Record<string, unknown>>[] = (
  [
    { header: 'customerId', value: (r) => r.customerId },
    { header: 'customerName', value: (r) => r.customerName },
    { header: 'outcome', value: (r) => r.outcome },
    { header: 'reason', value: (r) => r.reason },
    { header: 'invoiceId', value: (r) => r.invoiceId },
    { header: 'lines', value: (r) => r.lines },
    { header: 'amount', value: (r) => r.amount },
  ] satisfies CsvColumn<RunResultRow>[]
) as unknown as CsvColumn<Record<string, unknown>>[];

export const invoicesGenerate = defineKind<Payload, string>({
  kind: GENERATE_INVOICES,
  async prepare(q, orgId, raw) {
    const input = Request.parse(raw);
    const period = checkedPeriod(input.periodStart, input.periodEnd);
    const found = input.customerIds
      ? await resolveSelection(q, orgId, { ids: input.customerIds, match: async () => [] }, customers, 'customers')
      : await liveCustomerIds(q, orgId);
    return { payload: { ids: found, periodStart: period.start, periodEnd: period.end }, total: found.length };
  },
  run: {
    type: 'chunked',
    items: (payload) => payload.ids,
    async apply(env, payload, items) {
      const settings = await billingSettings(env.tx, env.orgId);
      const period = { start: payload.periodStart, end: payload.periodEnd };
      const results = await billCustomers(env.tx, settings, items.map((i) => i.item), period, null);
      const outcomes: ItemOutcome[] = results.map((r) => (r.outcome === 'BILLED' ? { ok: true } : { skipped: true }));
      await recordRunResults(env.tx, env.orgId, env.operationId, results);
      return outcomes;
    },
    result: {
      fileName: 'invoice-run',
      columns,
      async *rows(q, orgId, operationId) {
        for (let after: string | null = null; ; ) {
          const page = await runResultPage(q, orgId, operationId, after, RESULT_PAGE);
          yield* page as unknown as Record<string, unknown>[];
          if (page.length < RESULT_PAGE) return;
          after = page.at(-1)!.customerId;
        }
      },
    },
  },
});

export const INVOICE_KINDS: readonly KindDefinition[] = [invoicesGenerate];
