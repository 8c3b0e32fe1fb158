import { createHash } from 'node:crypto';

/**
 * Object keys, all under `org/<orgId>/`. Built only from ids; a record id that is not a plain
 * token (ids come from devices) is replaced by its hash, so no key can climb out of its folder.
 */
const SAFE = /^[A-Za-z0-9_-]{1,128}$/;

export function keySegment(id: string): string {
  return SAFE.test(id) ? id : createHash('sha256').update(id).digest('hex');
}

export type PhotoParent = 'quotes' | 'services';

export const fileKeys = {
  photo: (orgId: string, parent: PhotoParent, parentId: string, photoId: string) =>
    `org/${keySegment(orgId)}/${parent}/${keySegment(parentId)}/photos/${keySegment(photoId)}`,
  quotePdf: (orgId: string, quoteId: string, version: string) =>
    `org/${keySegment(orgId)}/quotes/${keySegment(quoteId)}/pdf-${keySegment(version)}`,
  /** A quote's generated PDF, named by the hash of what it shows (operations/pdf/quote-pdf-content.ts). */
  generatedQuotePdf: (orgId: string, quoteId: string, contentHash: string) =>
    `org/${keySegment(orgId)}/quotes/${keySegment(quoteId)}/generated-${keySegment(contentHash)}.pdf`,
  logo: (orgId: string, version: string) => `org/${keySegment(orgId)}/logo-${keySegment(version)}`,
  export: (orgId: string, name: string) => `org/${keySegment(orgId)}/exports/${keySegment(name)}.csv`,
};
