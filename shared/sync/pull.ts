import * as z from 'zod';
import { DecimalQueryInteger } from './decimal.js';
import { Checkpoint, ReceivedDocument } from './document.js';
import { BandQuery } from './priorities.js';

/**
 * Pull: `GET /sync/:collection/pull?checkpoint=<seq>&limit=<n>` answers the documents changed
 * after the checkpoint, oldest change first, and where to continue. A page shorter than `limit`
 * reached the end of the feed. With `from` and `to` (ISO times), a page of a priority band
 * instead (priorities.ts): only the rows in the band, with a checkpoint that continues the band.
 */
export const PULL_LIMIT = { default: 1000, max: 5000 } as const;

export const PullQuery = z
  .strictObject({
    checkpoint: DecimalQueryInteger.default(0),
    limit: DecimalQueryInteger.pipe(z.number().min(1).max(PULL_LIMIT.max)).default(PULL_LIMIT.default),
    from: z.string().optional(),
    to: z.string().optional(),
  })
  .check((ctx) => {
    const band = BandQuery.safeParse({ from: ctx.value.from, to: ctx.value.to });
    if (!band.success) for (const issue of band.error.issues) ctx.issues.push({ code: 'custom', message: issue.message, input: ctx.value });
  });

export const PullAnswer = z.object({ documents: z.array(ReceivedDocument), checkpoint: Checkpoint });
export type PullAnswer = z.output<typeof PullAnswer>;
