import type { Database } from '../../server/storage/db.js';
import { insertDraft, insertLinesOnce, type LineMinor } from '../../server/storage/invoices.js';

/**
 * A draft invoice with lines of visits and the stock used on them, written through billing's
 * storage (a month's run needs a month of visits and doses recorded first; delivery's tests need
 * only the lines). The draft is then finalized through the real operation, which prices it. Amounts
 * here are in minor units (cents).
 */
export interface FixtureLine {
  sourceType: LineMinor['sourceType'];
  description: string;
  quantity: number;
  unitPriceCents: number;
  /** The visit's date (visit and stock lines). */
  date?: string;
  /** The visit (visit and stock lines share it). */
  serviceId?: string;
  taxRate?: number;
}

let sequence = 0;

export async function draftThroughStorage(db: Database, orgId: string, customerId: string, lines: FixtureLine[], options: { periodStart?: string; periodEnd?: string; notes?: string } = {}): Promise<string> {
  const id = `draft-${Date.now()}-${++sequence}`;
  await db.transaction(async (tx) => {
    await insertDraft(tx, orgId, {
      id,
      customerId,
      origin: 'GENERATED',
      periodStart: options.periodStart ?? null,
      periodEnd: options.periodEnd ?? null,
      currency: 'USD',
      taxRounding: 'PER_INVOICE',
      notes: options.notes ?? null,
      quoteId: null,
      createdById: null,
    });
    await insertLinesOnce(
      tx,
      orgId,
      id,
      lines.map((line, i) => ({
        id: `${id}-line-${i + 1}`,
        position: i + 1,
        sourceType: line.sourceType,
        sourceId: line.sourceType === 'MANUAL' ? null : `${id}-source-${i + 1}`,
        serviceId: line.serviceId ?? null,
        date: line.date ?? null,
        itemId: null,
        description: line.description,
        quantity: line.quantity,
        unitPrice: line.unitPriceCents,
        amount: Math.round(line.quantity * line.unitPriceCents),
        taxId: null,
        taxRate: line.taxRate ?? 0,
        taxAmount: null,
      })),
    );
  });
  return id;
}
