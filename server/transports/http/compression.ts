import compression from 'compression';
import type { RequestHandler } from 'express';
import zlib from 'node:zlib';

/**
 * gzip and brotli, negotiated by Accept-Encoding (the `compression` middleware). JSON pages of a
 * sync pull shrink about tenfold, which on a technician's LTE link is most of an initial sync.
 *
 * Levels are chosen for throughput, not ratio: a pull page is produced as fast as the database
 * writes it, and gzip's default level 6 cost more CPU than it saved bytes (server/README.md, Running in
 * production; test/bench/RESULTS.md, Sync). Responses stream through the compressor as they are written (CSV exports never sit
 * whole in memory); images and other already-compressed types pass through untouched.
 */
export function compressResponses(): RequestHandler {
  return compression({
    level: 1,
    brotli: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 3 } },
    threshold: 1024,
  });
}
