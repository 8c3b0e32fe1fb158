import { Router } from 'express';
import { errors } from '../../../shared/index.js';
import { generatedQuotePdf } from '../../operations/quote-pdfs.js';
import type { BlobStore } from '../../storage/blobs.js';
import type { Database } from '../../storage/db.js';
import type { FileLinks } from '../http/file-links.js';

/**
 * GET /quote-pdfs/<orgId>/<quoteId>/<hash>.pdf?expires&signature: a quote's generated PDF, made on
 * the first fetch and stored (operations/quote-pdfs.ts). Like /files, the signature is the
 * permission: no Authorization header.
 */
export function quotePdfRoute(db: Database, blobs: BlobStore, links: FileLinks): Router {
  const router = Router();
  router.get('/quote-pdfs/:orgId/:quoteId/:file', async (req, res) => {
    const { orgId, quoteId, file } = req.params as { orgId: string; quoteId: string; file: string };
    const { expires, signature } = req.query as Record<string, string | undefined>;
    const contentHash = /^([0-9a-f]{16,64})\.pdf$/.exec(file)?.[1];
    if (!contentHash || !links.isValidQuotePdf({ orgId, quoteId, contentHash }, expires, signature)) {
      throw errors.forbidden('This PDF link is invalid or has expired');
    }
    const pdf = await generatedQuotePdf({ db, blobs }, orgId, quoteId, contentHash);
    res.set({
      'content-type': 'application/pdf',
      'content-length': String(pdf.bytes.length),
      'content-disposition': `inline; filename="${pdf.fileName}"`,
      'cache-control': `private, max-age=${Math.max(0, Number(expires) - Math.floor(Date.now() / 1000))}`,
      'x-content-type-options': 'nosniff',
    });
    res.end(pdf.bytes);
  });
  return router;
}
