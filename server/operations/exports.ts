import { z } from 'zod';
import { quoteExportBatch, type QuoteExportRow } from '../storage/quotes.js';
import type { OperationContext } from './context.js';
import type { CsvColumn } from './csv.js';
import { parseInput } from './input.js';

/** Quote export: read in keyset batches so memory stays flat however many quotes there are. */
const ExportInput = z.strictObject({ startDate: z.iso.date('must be a date such as 2026-01-31').nullish() });

export const QUOTE_CSV_COLUMNS: readonly CsvColumn<QuoteExportRow>[] = [
  { header: 'number', value: (r) => r.number },
  { header: 'title', value: (r) => r.title },
  { header: 'customer name', value: (r) => r.customerName },
  { header: 'status', value: (r) => r.status },
  { header: 'subtotal', value: (r) => r.subtotal },
  { header: 'tax', value: (r) => r.tax },
  { header: 'total', value: (r) => r.total },
  { header: 'validUntil', value: (r) => r.validUntil },
  { header: 'acceptedAt', value: (r) => r.acceptedAt },
  { header: 'createdAt', value: (r) => r.createdAt },
];

const BATCH = 500;

/** Validates the request up front (so a bad one fails before any byte is sent), then streams. */
export function exportQuotes(ctx: OperationContext, raw: { startDate?: unknown }): AsyncIterable<QuoteExportRow> {
  const { startDate } = parseInput(ExportInput, { startDate: raw.startDate });
  return (async function* () {
    let after: [string, string] | null = null;
    for (;;) {
      const batch = await quoteExportBatch(ctx.db, ctx.viewer.orgId, startDate ?? null, after, BATCH);
      yield* batch;
      if (batch.length < BATCH) return;
      after = batch.at(-1)!.seek;
    }
  })();
}
