import { Router, type RequestHandler, type Response } from 'express';
import { errors } from '../../../shared/index.js';
import { downloadInvoicePdf, invoicePdfOf, type InvoicePdf } from '../../operations/billing/invoice-documents.js';
import { invoicePage, invoicePageLogo, invoicePagePdf } from '../../operations/billing/invoice-page.js';
import { invoiceGonePage } from '../../operations/billing/invoice-view.js';
import type { Blob, BlobStore } from '../../storage/blobs.js';
import type { Database } from '../../storage/db.js';
import type { FileLinks } from '../http/file-links.js';
import { contextOf } from '../http/request-context.js';

/**
 * An invoice's PDF and page over HTTP:
 * - GET /invoices/:id/pdf, for the office (ADMIN, OFFICE, API; bearer token), a draft included;
 * - GET /invoice-pdfs/<orgId>/<invoiceId>.pdf?expires&signature, the signed link Invoice.pdfUrl
 *   gives (the signature is the permission, as for quotes' PDFs);
 * - GET /invoice/<token>, the page the link in an invoice's email opens, with /pdf and /logo under
 *   it; no Authorization header: the token is the permission. The page runs no script, loads
 *   nothing from elsewhere and sends no Referer, so the token never leaves in a header.
 * The PDF is made on each request, as the invoice is then.
 */
const PAGE_HEADERS = {
  'content-security-policy': "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'x-robots-tag': 'noindex',
  'cache-control': 'private, no-store',
  'x-content-type-options': 'nosniff',
};

function sendPdf(res: Response, pdf: InvoicePdf, headers: Record<string, string>): void {
  res.set({
    ...headers,
    'content-type': 'application/pdf',
    'content-length': String(pdf.bytes.length),
    'content-disposition': `inline; filename="${pdf.fileName}"`,
    'cache-control': 'private, no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(pdf.bytes);
}

function gone(res: Response): void {
  res.status(404).set(PAGE_HEADERS).type('text/html').send(invoiceGonePage());
}

function sendBlob(res: Response, blob: Blob | null): void {
  if (!blob) return gone(res);
  res.set({ ...PAGE_HEADERS, 'content-type': blob.contentType, 'content-length': String(blob.size) });
  blob.body.on('error', (error) => res.destroy(error));
  blob.body.pipe(res);
}

export function invoicePdfRoutes(auth: RequestHandler, db: Database, blobs: BlobStore, links: FileLinks): Router {
  const router = Router();
  router.get('/invoices/:id/pdf', auth, async (req, res) => {
    sendPdf(res, await downloadInvoicePdf(contextOf(req), String(req.params.id)), {});
  });
  router.get('/invoice-pdfs/:orgId/:file', async (req, res) => {
    const { orgId, file } = req.params as { orgId: string; file: string };
    const { expires, signature } = req.query as Record<string, string | undefined>;
    const invoiceId = /^(.+)\.pdf$/.exec(file)?.[1];
    if (!invoiceId || !links.isValidInvoicePdf({ orgId, invoiceId }, expires, signature)) {
      throw errors.forbidden('This PDF link is invalid or has expired');
    }
    const pdf = await invoicePdfOf({ db, blobs }, orgId, invoiceId);
    if (!pdf) throw errors.notFound('Invoice', invoiceId);
    sendPdf(res, pdf, {});
  });
  return router;
}

export function invoicePageRoutes(db: Database, blobs: BlobStore): Router {
  const router = Router();
  router.get('/invoice/:token', async (req, res) => {
    const html = await invoicePage(db, req.params.token);
    if (!html) return gone(res);
    res.status(200).set(PAGE_HEADERS).type('text/html').send(html);
  });
  router.get('/invoice/:token/pdf', async (req, res) => {
    const pdf = await invoicePagePdf(db, blobs, req.params.token);
    if (!pdf) return gone(res);
    sendPdf(res, pdf, { 'referrer-policy': 'no-referrer', 'x-robots-tag': 'noindex' });
  });
  router.get('/invoice/:token/logo', async (req, res) => {
    sendBlob(res, await invoicePageLogo(db, blobs, req.params.token));
  });
  return router;
}
