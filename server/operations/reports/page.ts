import type { Blob, BlobStore } from '../../storage/blobs.js';
import type { Database } from '../../storage/db.js';
import { organizations } from '../../storage/organizations.js';
import { photoKeyOf } from '../files.js';
import { openReportLink, reportPath } from './links.js';
import { reportPageHtml } from './report-view.js';
import { loadVisitReport } from './visit-report.js';

/**
 * What a report link opens, without signing in: the page (the visit as it is now, so a correction
 * made after the text went out shows), its photos and the organization's logo. Null for a link
 * that does not work (never issued, expired, revoked) or names what is no longer there.
 */
export async function reportPage(db: Database, token: string): Promise<string | null> {
  const link = await openReportLink(db, token);
  if (!link) return null;
  const loaded = await loadVisitReport(db, link.orgId, link.serviceId);
  if (!loaded) return null;
  const base = reportPath(token);
  return reportPageHtml(loaded.view, { page: base, photo: (id) => `${base}/photos/${encodeURIComponent(id)}`, logo: `${base}/logo` });
}

export async function reportPhoto(db: Database, blobs: BlobStore, token: string, photoId: string): Promise<Blob | null> {
  const link = await openReportLink(db, token);
  if (!link) return null;
  const loaded = await loadVisitReport(db, link.orgId, link.serviceId);
  const photo = loaded?.visit.photos.find((p) => p.id === photoId);
  const key = photo && photoKeyOf(link.orgId, 'services', link.serviceId, photo);
  return key ? blobs.get(key) : null;
}

export async function reportLogo(db: Database, blobs: BlobStore, token: string): Promise<Blob | null> {
  const link = await openReportLink(db, token);
  if (!link) return null;
  const organization = await organizations.findById(db, link.orgId, link.orgId);
  return organization?.logoKey ? blobs.get(organization.logoKey) : null;
}

