import * as z from 'zod';
import { DecimalQueryInteger } from './decimal.js';
import { Checkpoint, ReceivedDocument } from './document.js';
import { BandQuery, HeldBandQuery } from './priorities.js';

/**
 * Pull: `GET /sync/:collection/pull?checkpoint=<seq>&limit=<n>` answers the documents changed
 * after the checkpoint, oldest change first, and where to continue. A page shorter than `limit`
 * reached the end of the feed. With `from` and `to` (ISO times), a page of a priority band
 * instead (priorities.ts): only the rows in the band, with a checkpoint that continues the band.
 * With `heldFrom`, `heldTo` and `heldAt`, a first sync's full pull that leaves out what a band it
 * holds brought (priorities.ts, `HeldBand`).
 */
export const PULL_LIMIT = { default: 1000, max: 5000 } as const;

export const PullQuery = z
  .strictObject({
    checkpoint: DecimalQueryInteger.default(0),
    limit: DecimalQueryInteger.pipe(z.number().min(1).max(PULL_LIMIT.max)).default(PULL_LIMIT.default),
    from: z.string().optional(),
    to: z.string().optional(),
    heldFrom: z.string().optional(),
    heldTo: z.string().optional(),
    heldAt: z.string().optional(),
  })
  .check((ctx) => {
    const band = BandQuery.safeParse({ from: ctx.value.from, to: ctx.value.to });
    if (!band.success) for (const issue of band.error.issues) ctx.issues.push({ code: 'custom', message: issue.message, input: ctx.value });
    const held = HeldBandQuery.safeParse(ctx.value);
    if (!held.success) for (const issue of held.error.issues) ctx.issues.push({ code: 'custom', message: issue.message, input: ctx.value });
    if (held.success && held.data && ctx.value.from !== undefined) ctx.issues.push({ code: 'custom', message: 'a band pull names no held band (heldFrom, heldTo, heldAt are for the full pull)', input: ctx.value });
  })
  .transform(({ heldFrom, heldTo, heldAt, ...rest }) => ({ ...rest, held: HeldBandQuery.parse({ heldFrom, heldTo, heldAt }) }));

/**
 * `heads`: on a band's first page (from the start), the device's feed position of each band
 * collection, read before the band was: what a full pull names when it says it holds the band.
 */
export const PullAnswer = z.object({ documents: z.array(ReceivedDocument), checkpoint: Checkpoint, heads: z.record(z.string(), z.number().int().min(0)).optional() });
export type PullAnswer = z.output<typeof PullAnswer>;
