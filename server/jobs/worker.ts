import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { csvStream } from '../operations/csv.js';
import { fileKeys } from '../operations/file-keys.js';
import { kindNamed, type ChunkedKind, type ChunkResultFile, type ExportKind, type ItemOutcome } from '../operations/bulk/kinds.js';
import type { BlobStore } from '../storage/blobs.js';
import {
  addProgress,
  setOperationTotal,
  claimNextOperation,
  finishOperation,
  lockOperation,
  type BulkOperationRow,
  type ItemError,
} from '../storage/bulk-operations.js';
import type { Database } from '../storage/db.js';
import { addMessages, markMessage, pendingMessages } from '../storage/outgoing-messages.js';
import type { Messenger } from './messenger.js';

/**
 * The bulk-operation worker: a loop in every server process. It claims a job (SKIP LOCKED, so
 * processes share jobs without doing any twice), works it in chunks, each chunk one transaction
 * that also records the progress, and so resumes after a crash from the last recorded chunk with
 * no item applied twice. A job whose worker stops showing life (heartbeat) is claimed by another.
 */
export interface WorkerOptions {
  db: Database;
  blobs: BlobStore;
  messenger: Messenger;
  logger: Logger;
  chunkSize?: number;
  pollMs?: number;
  /** A running job silent this long is taken over. */
  staleMs?: number;
  /**
   * This process's name across restarts (process-life.ts): running jobs claimed under it were
   * claimed by an earlier life of this process, which is gone, and are taken back at once.
   */
  life?: string | undefined;
  /** Test hook: runs inside each chunk's transaction after the items were applied. */
  beforeChunkCommit?: (operation: BulkOperationRow, chunk: number) => void | Promise<void>;
}

class Stopped extends Error {}

/**
 * Thrown by a test hook (beforeChunkCommit) to stop the worker the way a killed process stops:
 * the chunk's transaction rolls back, nothing else is written, the job is left to be taken over.
 */
export class WorkerCrash extends Error {}

export class BulkWorker {
  readonly id: string;
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private readonly chunkSize: number;
  private readonly pollMs: number;
  private readonly staleMs: number;

  constructor(private readonly options: WorkerOptions) {
    this.chunkSize = options.chunkSize ?? 500;
    this.pollMs = options.pollMs ?? 500;
    this.staleMs = options.staleMs ?? 30_000;
    this.id = options.life ? workerIdIn(options.life) : `worker-${randomUUID()}`;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Finishes the current chunk, then stops. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  /** Looks for work now instead of at the next poll (after a job was queued). */
  poke(): void {
    this.wake?.();
  }

  private async run(): Promise<void> {
    while (this.running) {
      let worked = false;
      try {
        worked = await this.runOnce();
      } catch (error) {
        if (!(error instanceof Stopped) && !(error instanceof WorkerCrash)) this.options.logger.error({ err: error }, 'bulk worker failed');
      }
      if (!worked && this.running) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.pollMs);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = null;
      }
    }
  }

  /** Claims and works one job; false when there was none. */
  async runOnce(): Promise<boolean> {
    const job = await claimNextOperation(this.options.db, this.id, this.staleMs, this.options.life && lifePrefix(this.options.life));
    if (!job) return false;
    const kind = kindNamed(job.kind);
    try {
      if (!kind) throw new Error(`unknown kind ${job.kind}`);
      if (kind.run.type === 'export') await this.export(job, kind.run);
      else await this.chunks(job, kind.run);
    } catch (error) {
      if (error instanceof WorkerCrash) this.running = false;
      if (error instanceof Stopped || error instanceof WorkerCrash) throw error;
      this.options.logger.error({ err: error, operation: job.id }, 'bulk operation failed');
      await finishOperation(this.options.db, job.orgId, job.id, 'FAILED', {
        error: { code: 'INTERNAL', message: 'The operation stopped on an unexpected error; see the server log' },
      });
    }
    return true;
  }

  private async chunks(job: BulkOperationRow, kind: ChunkedKind): Promise<void> {
    const { db } = this.options;
    const items = kind.items(job.payload);
    if (kind.sendsMessages) await this.deliver(job);
    let processed = job.processed;
    for (let chunk = Math.floor(processed / this.chunkSize); processed < items.length; chunk++) {
      if (!this.running) throw new Stopped();
      const slice = items.slice(processed, processed + this.chunkSize).map((item, i) => ({ index: processed + i, item }));
      const state = await db.transaction(async (tx) => {
        const current = await lockOperation(tx, job.orgId, job.id);
        if (!current || current.claimedBy !== this.id) return 'lost' as const;
        if (current.cancelRequested) return 'cancelled' as const;
        const outcomes = await kind.apply(
          {
            tx,
            orgId: job.orgId,
            operationId: job.id,
            // Sent after the commit when there is a sender for the channel; kept as STORED if not.
            addMessages: (messages) =>
              addMessages(tx, job.orgId, messages.map((m) => ({ ...m, status: this.options.messenger.canSend(m.channel) ? 'PENDING' : 'STORED' }))),
          },
          job.payload,
          slice,
        );
        await this.options.beforeChunkCommit?.(job, chunk);
        await addProgress(tx, job.orgId, job.id, tally(slice, outcomes));
        return 'done' as const;
      });
      if (state === 'lost') return;
      if (state === 'cancelled') return finishOperation(db, job.orgId, job.id, 'CANCELLED');
      processed += slice.length;
      if (kind.sendsMessages) await this.deliver(job);
    }
    const resultKey = kind.result ? await this.resultFile(job, kind.result) : null;
    const done = (await lockOperation(db, job.orgId, job.id))!;
    const status = done.failed === 0 ? 'SUCCEEDED' : done.succeeded === 0 && done.skipped === 0 ? 'FAILED' : 'PARTIAL';
    await finishOperation(db, job.orgId, job.id, status, { resultKey });
  }

  /** Writes a chunked kind's result file (CSV, streamed); it appears only once complete. */
  private async resultFile(job: BulkOperationRow, file: ChunkResultFile): Promise<string> {
    const key = fileKeys.export(job.orgId, `${file.fileName}-${job.id}`);
    await this.options.blobs.putStream(key, csvStream(file.rows(this.options.db, job.orgId, job.id), file.columns), 'text/csv; charset=utf-8');
    return key;
  }

  /** Streams the rows as CSV into object storage; the file appears only once complete. */
  private async export(job: BulkOperationRow, kind: ExportKind): Promise<void> {
    const { db, blobs } = this.options;
    let count = 0;
    const self = this;
    async function* counted() {
      for await (const row of kind.rows(db, job.orgId, job.payload)) {
        if (!self.running) throw new Stopped();
        count++;
        if (count % 5000 === 0) {
          const current = await lockOperation(db, job.orgId, job.id);
          if (current?.cancelRequested) throw new Cancelled();
          await addProgress(db, job.orgId, job.id, { processed: 5000, succeeded: 5000, failed: 0, skipped: 0, errors: [] });
        }
        yield row;
      }
    }
    const key = fileKeys.export(job.orgId, `${kind.fileName}-${job.id}`);
    try {
      await blobs.putStream(key, csvStream(counted(), kind.columns), 'text/csv; charset=utf-8');
    } catch (error) {
      if (error instanceof Cancelled) return finishOperation(db, job.orgId, job.id, 'CANCELLED');
      throw error;
    }
    const rest = count % 5000;
    await setOperationTotal(db, job.orgId, job.id, count);
    await addProgress(db, job.orgId, job.id, { processed: rest, succeeded: rest, failed: 0, skipped: 0, errors: [] });
    await finishOperation(db, job.orgId, job.id, 'SUCCEEDED', { resultKey: key });
  }

  /** Sends the job's pending messages; each is marked as it goes, so a resumed job sends no repeat. */
  private async deliver(job: BulkOperationRow): Promise<void> {
    const { db, messenger } = this.options;
    for (;;) {
      const batch = await pendingMessages(db, job.orgId, job.id, 100);
      if (!batch.length) return;
      for (const message of batch) {
        try {
          await messenger.send(message);
          await markMessage(db, job.orgId, message.id, 'SENT', null);
        } catch (error) {
          await markMessage(db, job.orgId, message.id, 'FAILED', (error as Error).message);
        }
      }
    }
  }
}

class Cancelled extends Error {}

/** Worker ids of one process life share a prefix; each life adds its own random part. */
const lifePrefix = (life: string) => `life:${life}/`;
const workerIdIn = (life: string) => `${lifePrefix(life)}${randomUUID()}`;

function tally(slice: { index: number; item: unknown }[], outcomes: ItemOutcome[]) {
  const errors: ItemError[] = [];
  let succeeded = 0;
  let skipped = 0;
  outcomes.forEach((o, i) => {
    if ('ok' in o) succeeded++;
    else if ('skipped' in o) skipped++;
    else errors.push({ index: slice[i]!.index, ...(typeof slice[i]!.item === 'string' ? { id: slice[i]!.item as string } : {}), ...o.error });
  });
  return { processed: slice.length, succeeded, failed: errors.length, skipped, errors };
}
