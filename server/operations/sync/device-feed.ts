import { scopeFor } from '../../../shared/index.js';
import { feedHead, feedIdsAfter, readFeedPage, type FeedPage } from '../../storage/change-feed.js';
import type { Queryable } from '../../storage/db.js';
import { readScopePage, scopeEntriesAfter, scopeHead } from '../../storage/scope-feed.js';
import type { Viewer } from '../context.js';
import type { SyncCollection } from './collections.js';

/**
 * The feed of a collection as one device sees it: the table's own change feed for a device that
 * holds the whole collection (the office, and every device for the catalog), or the technician's
 * own feed where their scope is narrower (shared/sync/scopes.ts). Pull, push and the live stream
 * read a device's feed through this, never through a role check of their own.
 */
export interface DeviceFeed {
  /** Whether this feed is the technician's own (entries of held and departed rows) rather than the table's. */
  readonly scoped: boolean;
  page(q: Queryable, afterSeq: number, limit: number): Promise<FeedPage>;
  head(q: Queryable): Promise<number>;
  /** What lies after a position: each row and whether the device holds it there (a departure does not). */
  entriesAfter(q: Queryable, afterSeq: number, limit: number): Promise<{ id: string; seq: number; present: boolean }[]>;
}

export function deviceFeed(viewer: Viewer, collection: SyncCollection): DeviceFeed {
  const { orgId, userId } = viewer;
  if (scopeFor(viewer.role, collection.name)) {
    return {
      scoped: true,
      page: (q, after, limit) => readScopePage(q, collection.table, orgId, userId, collection.name, after, limit),
      head: (q) => scopeHead(q, orgId, userId, collection.name),
      entriesAfter: (q, after, limit) => scopeEntriesAfter(q, orgId, userId, collection.name, after, limit),
    };
  }
  return {
    scoped: false,
    page: (q, after, limit) => readFeedPage(q, collection.table, orgId, after, limit),
    head: (q) => feedHead(q, collection.table, orgId),
    entriesAfter: async (q, after, limit) => (await feedIdsAfter(q, collection.table, orgId, after, limit)).map((r) => ({ ...r, present: true })),
  };
}
