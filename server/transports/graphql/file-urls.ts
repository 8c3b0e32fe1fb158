import { photoKeyOf } from '../../operations/files.js';
import type { PhotoParent } from '../../operations/file-keys.js';
import type { GraphQLContext } from './context.js';

/** Photos as listed: each with a fresh signed URL once its bytes have arrived, else url null. */
export function withPhotoUrls<P extends { id: string; size?: number | null }>(
  ctx: GraphQLContext,
  parent: PhotoParent,
  parentId: string,
  photos: readonly P[],
): (P & { url: string | null })[] {
  return photos.map((photo) => {
    const key = photoKeyOf(ctx.viewer.orgId, parent, parentId, photo);
    return { ...photo, url: key ? ctx.fileUrl(key) : null };
  });
}
