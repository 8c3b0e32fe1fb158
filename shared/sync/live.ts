import * as z from 'zod';
import { Checkpoint, ReceivedDocument } from './document.js';

/**
 * The live stream, `GET /sync/stream?collections=a,b`: Server-Sent Events whose data is one of
 * these. RESYNC comes first on every connection (pull from your checkpoint) and announces the
 * heartbeat; a batch holds everything in the collection's feed after `since` up to `checkpoint`.
 */
export const ResyncEvent = z.object({ type: z.literal('RESYNC'), heartbeatMs: z.number().int().positive().optional() });

export const ChangesEvent = z.object({
  type: z.literal('changes'),
  collection: z.string(),
  documents: z.array(ReceivedDocument),
  checkpoint: Checkpoint,
  /** Absent from servers before `since` existed: such a batch can only trigger a pull. */
  since: Checkpoint.optional(),
});

export const LiveEvent = z.discriminatedUnion('type', [ResyncEvent, ChangesEvent]);
export type LiveEvent = z.output<typeof LiveEvent>;
export type ChangeBatch = Omit<z.output<typeof ChangesEvent>, 'type'>;
