import { Router, type RequestHandler } from 'express';
import { errors } from '../../../shared/index.js';
import { addQuotePhoto, addServicePhoto, setOrganizationLogo, setQuotePdf, type PhotoResult } from '../../operations/files.js';
import { generatedPdfHash, removeCustomQuotePdf, storeSources } from '../../operations/quote-pdfs.js';
import type { BlobStore } from '../../storage/blobs.js';
import { baseUrlOf, type FileLinks } from '../http/file-links.js';
import { contextOf } from '../http/request-context.js';
import { declaredBodyWithin } from '../http/bodies.js';
import { idempotentWrite } from '../http/idempotent-routes.js';
import { MULTIPART_ALLOWANCE, singleFileUpload, uploadedBytes } from './uploads.js';

export interface FileRouteDeps {
  links: FileLinks;
  maxUploadBytes: number;
  publicUrl: string | undefined;
}

/**
 * The upload endpoints. Each answers with signed, expiring URLs of what it stored. A retried
 * photo upload (same client id) answers 200 with the photo already stored instead of 201.
 */
export function uploadRoutes(auth: RequestHandler, { links, maxUploadBytes, publicUrl }: FileRouteDeps): Router {
  const router = Router();
  const upload = singleFileUpload(maxUploadBytes);
  const bounded = declaredBodyWithin(maxUploadBytes + MULTIPART_ALLOWANCE);

  const photoResponse = (baseUrl: string, result: PhotoResult) => ({
    id: result.photo.id,
    url: links.urlFor(result.key, baseUrl),
    caption: result.photo.caption,
    contentType: result.photo.contentType,
    size: result.photo.size,
  });

  for (const [path, addPhoto] of [
    ['/quotes/:id/photos', addQuotePhoto],
    ['/services/:id/photos', addServicePhoto],
  ] as const) {
    router.post(
      path,
      bounded,
      auth,
      upload,
      idempotentWrite(async (req, ctx) => {
        const result = await addPhoto(ctx, req.params.id as string, {
          bytes: uploadedBytes(req.file),
          caption: req.body?.caption,
          id: req.body?.id,
        });
        // 201 for a new photo, 200 for a retried upload answered with the stored one.
        return { status: result.created ? 201 : 200, body: photoResponse(baseUrlOf(req, publicUrl), result) };
      }),
    );
  }

  router.post(
    '/quotes/:id/pdf',
    bounded,
    auth,
    upload,
    idempotentWrite(async (req, ctx) => {
      const quote = await setQuotePdf(ctx, req.params.id as string, uploadedBytes(req.file));
      return { status: 200, body: { pdfUrl: links.urlFor(quote.pdfKey!, baseUrlOf(req, publicUrl)) } };
    }),
  );

  // Removes the custom PDF: the quote's PDF is its generated one again.
  router.delete('/quotes/:id/pdf', auth, async (req, res) => {
    const ctx = contextOf(req);
    const quote = await removeCustomQuotePdf(ctx, req.params.id as string);
    const contentHash = await generatedPdfHash(quote, storeSources(ctx.db, ctx.viewer.orgId));
    res.json({ pdfUrl: links.quotePdfUrl({ orgId: ctx.viewer.orgId, quoteId: quote.id, contentHash }, baseUrlOf(req, publicUrl)) });
  });

  router.post(
    '/organization/logo',
    bounded,
    auth,
    upload,
    idempotentWrite(async (req, ctx) => {
      const organization = await setOrganizationLogo(ctx, uploadedBytes(req.file));
      return { status: 200, body: { logo: links.urlFor(organization.logoKey!, baseUrlOf(req, publicUrl)) } };
    }),
  );

  return router;
}

/**
 * GET /files/<key>?expires&signature: streams a stored file to whoever holds a valid link. No
 * Authorization header: the signature is the permission.
 */
export function downloadRoute(blobs: BlobStore, links: FileLinks): Router {
  const router = Router();
  router.get('/files/*key', async (req, res) => {
    const key = (req.params as { key: string[] }).key.join('/');
    const { expires, signature } = req.query as Record<string, string | undefined>;
    if (!links.isValid(key, expires, signature)) throw errors.forbidden('This file link is invalid or has expired');
    const blob = await blobs.get(key);
    if (!blob) throw errors.notFound('File', key);
    res.set({
      'content-type': blob.contentType,
      'content-length': String(blob.size),
      'cache-control': `private, max-age=${Math.max(0, Number(expires) - Math.floor(Date.now() / 1000))}`,
      'x-content-type-options': 'nosniff',
    });
    blob.body.on('error', (error) => res.destroy(error));
    blob.body.pipe(res);
  });
  return router;
}
