import type { BlobStore } from '../../storage/blobs.js';
import { PDF_IMAGE_TYPES, type Logo } from './pdf-page.js';

/** The logo's bytes when there is one pdfkit can place (JPEG, PNG); a missing object is no logo. */
export async function logoOf(blobs: BlobStore, key: string | null): Promise<Logo | null> {
  if (!key) return null;
  const blob = await blobs.get(key);
  if (!blob) return null;
  if (!PDF_IMAGE_TYPES.includes(blob.contentType)) {
    blob.body.destroy();
    return null;
  }
  return { bytes: await bytesOf(blob.body), contentType: blob.contentType };
}

export async function bytesOf(body: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks);
}
