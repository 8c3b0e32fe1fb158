import { Router, type Response } from 'express';
import { reportLogo, reportPage, reportPhoto } from '../../operations/reports/page.js';
import { reportGonePage } from '../../operations/reports/report-view.js';
import type { Blob, BlobStore } from '../../storage/blobs.js';
import type { Database } from '../../storage/db.js';

/**
 * GET /reports/<token>: a visit's report for whoever holds the link a text or email carried, with
 * its photos (/photos/<id>) and the logo. No Authorization header: the token is the permission.
 * The page runs no script and loads nothing from elsewhere (its Content-Security-Policy says so),
 * and sends no Referer, so the token never leaves in a header.
 */
const PAGE_HEADERS = {
  'content-security-policy': "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'x-robots-tag': 'noindex',
  'cache-control': 'private, no-store',
  'x-content-type-options': 'nosniff',
};

function sendBlob(res: Response, blob: Blob | null): void {
  if (!blob) {
    res.status(404).set(PAGE_HEADERS).type('text/html').send(reportGonePage());
    return;
  }
  res.set({ ...PAGE_HEADERS, 'content-type': blob.contentType, 'content-length': String(blob.size) });
  blob.body.on('error', (error) => res.destroy(error));
  blob.body.pipe(res);
}

export function reportRoutes(db: Database, blobs: BlobStore): Router {
  const router = Router();
  router.get('/reports/:token', async (req, res) => {
    const html = await reportPage(db, req.params.token);
    res.status(html ? 200 : 404).set(PAGE_HEADERS).type('text/html').send(html ?? reportGonePage());
  });
  router.get('/reports/:token/photos/:photoId', async (req, res) => {
    sendBlob(res, await reportPhoto(db, blobs, req.params.token, req.params.photoId));
  });
  router.get('/reports/:token/logo', async (req, res) => {
    sendBlob(res, await reportLogo(db, blobs, req.params.token));
  });
  return router;
}
