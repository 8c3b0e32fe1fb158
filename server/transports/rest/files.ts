import { Router, type RequestHandler } from 'express';
import { errors } from '../../../shared/index.js';
import { addQuotePhoto, addServicePhoto, setOrganizationLogo, setQuotePdf, type PhotoResult } from '../../operations/files.js';
import type { BlobStore } from '../../storage/blobs.js';
import { baseUrlOf, type FileLinks } from '../http/file-links.js';
import { contextOf } from '../http/request-context.js';
import { singleFileUpload, uploadedBytes } from './uploads.js';

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
    router.post(path, auth, upload, async (req, res) => {
      const result = await addPhoto(contextOf(req), req.params.id as string, {
        bytes: uploadedBytes(req.file),
        caption: req.body?.caption,
        id: req.body?.id,
      });
      // 201 for a new photo, 200 for a retried upload answered with the stored one.
      res.status(result.created ? 201 : 200).json(photoResponse(baseUrlOf(req, publicUrl), result));
    });
  }

  router.post('/quotes/:id/pdf', auth, upload, async (req, res) => {
    const quote = await setQuotePdf(contextOf(req), req.params.id as string, uploadedBytes(req.file));
    res.json({ pdfUrl: links.urlFor(quote.pdfKey!, baseUrlOf(req, publicUrl)) });
  });

  router.post('/organization/logo', auth, upload, async (req, res) => {
    const organization = await setOrganizationLogo(contextOf(req), uploadedBytes(req.file));
    res.json({ logo: links.urlFor(organization.logoKey!, baseUrlOf(req, publicUrl)) });
  });

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
