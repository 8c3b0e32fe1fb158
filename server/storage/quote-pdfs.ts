import type { Queryable } from './db.js';

/**
 * Records the PDF just generated for a quote and returns the key of the one it replaces (null when
 * there was none, or it was this one), for the caller to remove from object storage.
 */
export async function recordGeneratedPdf(tx: Queryable, orgId: string, quoteId: string, generated: { contentHash: string; key: string; size: number }): Promise<string | null> {
  const { rows } = await tx.query<{ key: string }>('select key from quote_pdfs where org_id = $1 and quote_id = $2 for update', [orgId, quoteId]);
  await tx.query(
    `insert into quote_pdfs (org_id, quote_id, content_hash, key, size) values ($1, $2, $3, $4, $5)
     on conflict (org_id, quote_id) do update
       set content_hash = excluded.content_hash, key = excluded.key, size = excluded.size, generated_at = now()`,
    [orgId, quoteId, generated.contentHash, generated.key, generated.size],
  );
  const previous = rows[0]?.key ?? null;
  return previous === generated.key ? null : previous;
}
