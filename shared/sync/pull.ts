import * as z from 'zod';
import { Checkpoint, ReceivedDocument } from './document.js';

/**
 * Pull: `GET /sync/:collection/pull?checkpoint=<seq>&limit=<n>` answers the documents changed
 * after the checkpoint, oldest change first, and where to continue. A page shorter than `limit`
 * reached the end of the feed.
 */
export const PULL_LIMIT = { default: 1000, max: 5000 } as const;

export const PullQuery = z.strictObject({
  checkpoint: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(PULL_LIMIT.max).default(PULL_LIMIT.default),
});

export const PullAnswer = z.object({ documents: z.array(ReceivedDocument), checkpoint: Checkpoint });
export type PullAnswer = z.output<typeof PullAnswer>;
