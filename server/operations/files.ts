import { z } from 'zod';
import { errors, idValidator, type Organization, type Quote, type Service } from '../../shared/index.js';
import type { Queryable } from '../storage/db.js';
import { organizations } from '../storage/organizations.js';
import { lockQuote, quotes } from '../storage/quotes.js';
import { lockService, services } from '../storage/services.js';
import { detectImage, detectPdf } from './content-type.js';
import { OFFICE_ROLES, requireRole, type OperationContext } from './context.js';
import { fileKeys, type PhotoParent } from './file-keys.js';
import { newId } from './ids.js';
import { parseInput } from './input.js';
import { assertMayChangeQuote } from './quotes.js';

/**
 * Photos, quote PDFs and the organization logo. Bytes are checked by content, written to the blob
 * store, and only then recorded, in a transaction that locks the record; if recording fails the
 * new object is removed again, so no object is left that no row points to.
 */

export interface PhotoUpload {
  bytes: Buffer;
  caption?: unknown;
  /** The client's photo id: a retried upload with the same id stores nothing twice. */
  id?: unknown;
}

const PhotoFields = z.strictObject({
  caption: z.string().trim().max(2000).nullish(),
  // The photo's id everywhere (its record, its object key, a retry), so the id rule of every record.
  id: idValidator().nullish(),
});

type PhotoEntry = (Quote['photos'] | Service['photos'])[number] & { takenAt?: string | null };

export interface PhotoResult {
  photo: PhotoEntry;
  /** The key the photo's bytes are stored under (for its signed URL). */
  key: string;
  /** False when the photo was already stored (a retry): nothing was written. */
  created: boolean;
}

interface PhotoTarget {
  parent: PhotoParent;
  what: string;
  find(q: Queryable, orgId: string, id: string): Promise<{ photos: PhotoEntry[] } | null>;
  lock(q: Queryable, orgId: string, id: string): Promise<{ photos: PhotoEntry[] } | null>;
  save(q: Queryable, orgId: string, id: string, photos: PhotoEntry[]): Promise<unknown>;
  assertMayChange(ctx: OperationContext, record: unknown): void;
}

const quoteTarget: PhotoTarget = {
  parent: 'quotes',
  what: 'Quote',
  find: (q, orgId, id) => quotes.findById(q, orgId, id),
  lock: (q, orgId, id) => lockQuote(q, orgId, id),
  save: (q, orgId, id, photos) => quotes.update(q, orgId, id, { photos: photos as Quote['photos'] }),
  assertMayChange: (ctx, record) => assertMayChangeQuote(ctx, record as Quote),
};

const serviceTarget: PhotoTarget = {
  parent: 'services',
  what: 'Service',
  find: (q, orgId, id) => services.findById(q, orgId, id),
  lock: (q, orgId, id) => lockService(q, orgId, id),
  save: (q, orgId, id, photos) => services.update(q, orgId, id, { photos: photos as Service['photos'] }),
  // Every role records visit photos; technicians are the ones taking them.
  assertMayChange: () => {},
};

export const addQuotePhoto = (ctx: OperationContext, quoteId: string, upload: PhotoUpload) =>
  attachPhoto(ctx, quoteTarget, quoteId, upload);

export const addServicePhoto = (ctx: OperationContext, serviceId: string, upload: PhotoUpload) =>
  attachPhoto(ctx, serviceTarget, serviceId, upload);

async function attachPhoto(ctx: OperationContext, target: PhotoTarget, parentId: string, upload: PhotoUpload): Promise<PhotoResult> {
  const fields = parseInput(PhotoFields, { caption: upload.caption, id: upload.id });
  const contentType = await detectImage(upload.bytes);
  const orgId = ctx.viewer.orgId;
  const record = await target.find(ctx.db, orgId, parentId);
  if (!record) throw errors.notFound(target.what, parentId);
  target.assertMayChange(ctx, record);

  const id = fields.id ?? newId();
  const key = fileKeys.photo(orgId, target.parent, parentId, id);
  const stored = record.photos.find((p) => p.id === id && p.size != null);
  if (stored && (await ctx.blobs.stat(key))) return { photo: stored, key, created: false };

  await ctx.blobs.put(key, upload.bytes, contentType);
  try {
    return await ctx.db.transaction(async (tx) => {
      const current = await target.lock(tx, orgId, parentId);
      if (!current) throw errors.notFound(target.what, parentId);
      const existing = current.photos.find((p) => p.id === id);
      if (existing?.size != null) return { photo: existing, key, created: false };
      const photo: PhotoEntry = {
        ...existing,
        id,
        url: null,
        caption: fields.caption ?? existing?.caption ?? null,
        contentType,
        size: upload.bytes.length,
        ...(target.parent === 'services' ? { takenAt: existing?.takenAt ?? null } : {}),
      };
      const photos = existing ? current.photos.map((p) => (p.id === id ? photo : p)) : [...current.photos, photo];
      await target.save(tx, orgId, parentId, photos);
      return { photo, key, created: true };
    });
  } catch (error) {
    await ctx.blobs.delete(key).catch(() => {});
    throw error;
  }
}

/** Attaches a custom PDF to a quote, replacing any earlier one; returns the updated quote. */
export async function setQuotePdf(ctx: OperationContext, quoteId: string, bytes: Buffer): Promise<Quote> {
  const contentType = await detectPdf(bytes);
  const orgId = ctx.viewer.orgId;
  const quote = await quotes.findById(ctx.db, orgId, quoteId);
  if (!quote) throw errors.notFound('Quote', quoteId);
  assertMayChangeQuote(ctx, quote);
  const key = fileKeys.quotePdf(orgId, quoteId, newId());
  return replaceFile(ctx, key, bytes, contentType, async (tx) => {
    const locked = await lockQuote(tx, orgId, quoteId);
    if (!locked) throw errors.notFound('Quote', quoteId);
    const updated = await quotes.update(tx, orgId, quoteId, { pdfKey: key });
    return { record: updated!, previousKey: locked.pdfKey };
  });
}

/** Sets the organization's logo (ADMIN, OFFICE or API); returns the updated organization. */
export async function setOrganizationLogo(ctx: OperationContext, bytes: Buffer): Promise<Organization> {
  requireRole(ctx.viewer, OFFICE_ROLES, 'change the organization logo');
  const contentType = await detectImage(bytes);
  const orgId = ctx.viewer.orgId;
  const key = fileKeys.logo(orgId, newId());
  return replaceFile(ctx, key, bytes, contentType, async (tx) => {
    const current = await organizations.findById(tx, orgId, orgId);
    const updated = await organizations.update(tx, orgId, orgId, { logoKey: key });
    return { record: updated!, previousKey: current?.logoKey ?? null };
  });
}

/**
 * Writes a new object, points the record at it, then removes the object it replaced. Each version
 * has its own key, so a link handed out earlier never shows a different file.
 */
async function replaceFile<T>(
  ctx: OperationContext,
  key: string,
  bytes: Buffer,
  contentType: string,
  record: (tx: Queryable) => Promise<{ record: T; previousKey: string | null }>,
): Promise<T> {
  await ctx.blobs.put(key, bytes, contentType);
  let result: { record: T; previousKey: string | null };
  try {
    result = await ctx.db.transaction(record);
  } catch (error) {
    await ctx.blobs.delete(key).catch(() => {});
    throw error;
  }
  if (result.previousKey) await ctx.blobs.delete(result.previousKey).catch(() => {});
  return result.record;
}

/** The key of a stored photo's bytes, or null while they have not arrived. */
export function photoKeyOf(orgId: string, parent: PhotoParent, parentId: string, photo: { id: string; size?: number | null }) {
  return photo.size == null ? null : fileKeys.photo(orgId, parent, parentId, photo.id);
}
