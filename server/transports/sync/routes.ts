import express, { Router, type RequestHandler, type Response } from 'express';
import type { Logger } from 'pino';
import { randomUUID } from 'node:crypto';
import { errors, PUSH_CHECKPOINT_HEADER, SYNC_STREAM_HEADER } from '../../../shared/index.js';
import type { LiveFanout } from '../../operations/sync/live-fanout.js';
import { pull, pullResponseParts } from '../../operations/sync/pull.js';
import { push } from '../../operations/sync/push.js';
import { SYNC_COLLECTIONS } from '../../operations/sync/collections.js';
import { declaredBodyWithin } from '../http/bodies.js';
import type { Metrics } from '../http/metrics.js';
import { contextOf } from '../http/request-context.js';
import { eventFrame, openEventStream } from './event-stream.js';

/**
 * The replication endpoint, RxDB's protocol over HTTP:
 *   GET  /sync/:collection/pull?checkpoint=<seq>&limit=<n>  -> {documents, checkpoint: {seq}}
 *        (&from=&to=: a page of a priority band instead, shared/sync/priorities.ts)
 *   POST /sync/:collection/push?checkpoint=<seq>&stream=<id>  [{assumedMasterState, newDocumentState}]  -> [server states]
 *        (and, when the device may skip pulling its own writes back, a Sync-Checkpoint header;
 *        then the stream `id` is not sent those writes either)
 *   GET  /sync/stream?collections=a,b&stream=<id>  Server-Sent Events: RESYNC first, then change batches
 *        (answered with a Sync-Stream header: the stream's id, the device's own when it chose one)
 */
/** A stream id a device may choose: a UUID or the like (it is only ever compared, among its token's). */
const STREAM_ID = /^[A-Za-z0-9-]{8,64}$/;

export interface SyncRouteDeps {
  feed: LiveFanout;
  settings: { heartbeatMs: number; bodyLimitBytes: number; maxStreamsPerToken: number };
  logger: Logger;
  metrics?: Pick<Metrics, 'syncPull' | 'syncPush'>;
}

export interface SyncRoutes {
  router: Router;
  /** Ends every open stream (at shutdown), so in-flight requests can finish. */
  endStreams(): void;
}

const RETRY = Buffer.from('retry: 1000\n\n');
const HEARTBEAT = Buffer.from(': heartbeat\n\n');

export function syncRoutes(auth: RequestHandler, { feed, settings, logger, metrics }: SyncRouteDeps): SyncRoutes {
  const router = Router();
  const streams = new Set<Response>();
  /** Each token's open streams, oldest first. */
  const streamsOfToken = new Map<string, Set<Response>>();

  router.get('/sync/stream', auth, async (req, res) => {
    const ctx = contextOf(req);
    const names = typeof req.query.collections === 'string' ? req.query.collections.split(',').filter(Boolean) : null;
    const known = new Set(SYNC_COLLECTIONS.map((c) => c.name));
    const unknown = (names ?? []).filter((n) => !known.has(n));
    if (unknown.length) throw errors.badInput(`Unknown collections: ${unknown.join(', ')}`);
    // A HEAD has no body to hold a stream in (express routes it here).
    if (req.method === 'HEAD') {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' }).end();
      return;
    }
    const releaseSlot = takeStreamSlot(ctx.viewer.tokenId, res);
    // Its device names it in its pushes, so its own pushed rows are not sent back (own-writes.ts).
    // The device may choose it (`&stream=`), so a push sent while the stream connects names it too.
    const streamId = typeof req.query.stream === 'string' && STREAM_ID.test(req.query.stream) ? req.query.stream : randomUUID();
    const stream = openEventStream(res, { [SYNC_STREAM_HEADER]: streamId });
    stream.write(RETRY);
    streams.add(res);
    const heartbeat = setInterval(() => stream.write(HEARTBEAT), settings.heartbeatMs);
    let unsubscribe: (() => void) | null = null;
    res.on('close', () => {
      clearInterval(heartbeat);
      unsubscribe?.();
      streams.delete(res);
      releaseSlot();
    });
    const stop = await feed.subscribe(
      ctx,
      names ?? [...known],
      (json) => stream.write(eventFrame(json)),
      () => stream.end(), // the token was revoked: the device must authenticate again
      streamId,
    );
    // The device may have gone while the subscription was being set up.
    if (res.closed) stop();
    else unsubscribe = stop;
  });

  router.get('/sync/:collection/pull', auth, async (req, res) => {
    const result = await pull(contextOf(req), req.params.collection as string, {
      checkpoint: req.query.checkpoint,
      limit: req.query.limit,
      from: req.query.from,
      to: req.query.to,
      heldFrom: req.query.heldFrom,
      heldTo: req.query.heldTo,
      heldAt: req.query.heldAt,
    });
    // Written as it came from the database; res.json would parse nothing but would hash the body
    // for an ETag, which a checkpointed pull has no use for.
    // Bytes, with their length known: Node neither measures nor encodes a 6.6 MB string.
    const parts = pullResponseParts(result);
    res.setHeader('content-type', 'application/json; charset=utf-8');
    res.setHeader('content-length', parts.reduce((n, part) => n + part.length, 0));
    metrics?.syncPull(req.params.collection as string, result.count);
    for (const part of parts.slice(0, -1)) res.write(part);
    res.end(parts.at(-1));
  });

  // Rows are checked for nesting one by one (operations/sync/push-screen.ts), not the body as a whole.
  router.post('/sync/:collection/push', declaredBodyWithin(settings.bodyLimitBytes), auth, express.json({ limit: settings.bodyLimitBytes }), async (req, res) => {
    const ctx = contextOf(req);
    const collection = req.params.collection as string;
    const stream = typeof req.query.stream === 'string' ? req.query.stream : null;
    const outcome = await push(ctx, collection, req.body, req.query.checkpoint, {
      onCheckpoint: stream ? (seq) => feed.ownWrites(ctx, stream, collection, seq) : undefined,
    });
    for (const { id, reason } of outcome.refused) {
      logger.warn({ collection, id, reason, userId: ctx.viewer.userId }, 'sync push refused a row; answered with the server state');
    }
    for (const { id, reason } of outcome.quarantined) {
      logger.warn({ collection, id, reason, userId: ctx.viewer.userId }, 'sync push quarantined a document; answered with a tombstone');
    }
    metrics?.syncPush(collection, Array.isArray(req.body) ? req.body.length : 0, outcome.conflicts.length);
    if (outcome.checkpoint) {
      res.setHeader(PUSH_CHECKPOINT_HEADER, String(outcome.checkpoint.seq));
    }
    res.json(outcome.conflicts);
  });

  /**
   * Registers a token's stream in this process. One more than the setting allows closes the
   * token's oldest stream instead of refusing the new one: a device whose connection died without
   * a word (a dead cell tower, a lost NAT mapping) reconnects while its old stream still looks open
   * here, and would otherwise be refused until TCP gives up on the dead one, some 15 minutes later.
   * Returns the release, run when the stream closes.
   */
  function takeStreamSlot(tokenId: string, res: Response): () => void {
    const open = streamsOfToken.get(tokenId) ?? new Set<Response>();
    streamsOfToken.set(tokenId, open);
    for (const oldest of open) {
      if (open.size < settings.maxStreamsPerToken) break;
      open.delete(oldest);
      oldest.destroy(); // its 'close' cleans up the subscription and heartbeat
    }
    open.add(res);
    return () => {
      open.delete(res);
      if (!open.size && streamsOfToken.get(tokenId) === open) streamsOfToken.delete(tokenId);
    };
  }

  return {
    router,
    endStreams: () => {
      for (const res of streams) res.end();
      streams.clear();
    },
  };
}
