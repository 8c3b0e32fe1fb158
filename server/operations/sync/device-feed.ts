import { audienceOf, type CollectionName, type HeldBand } from '../../../shared/index.js';
import { heldBandSql, readBandPage, type BandRange } from '../../storage/band-pages.js';
import { feedHead, feedIdsAfter, readFeedPage, type FeedPage } from '../../storage/table-feed.js';
import type { Queryable } from '../../storage/db.js';
import { readScopePage, scopeEntriesAfter, scopeHead } from '../../storage/scope-entries.js';
import type { Viewer } from '../context.js';
import type { SyncCollection } from './collections.js';

/**
 * The feed of a collection as one device sees it: the table's own change feed for a device that
 * holds the whole collection (every device for the catalog), or the scope's own feed where the
 * device's scope is narrower (shared/sync/scopes.ts): a technician's, or the office's one shared
 * feed. Pull, push and the live stream read a device's feed through this, never through a role
 * check of their own.
 */
export interface DeviceFeed {
  /** Whether this feed is a scope's own (entries of held and departed rows) rather than the table's. */
  readonly scoped: boolean;
  /** Whose entries it reads in `scope_rows` (a technician's id, or the office's), or null for the table. */
  readonly audience: string | null;
  /** A page of the feed; `held`, a band the device holds, leaves out what that band brought (a first sync's full pull). */
  page(q: Queryable, afterSeq: number, limit: number, held?: HeldBand): Promise<FeedPage>;
  /** A page of a priority band of this feed (shared/sync/priorities.ts). */
  band(q: Queryable, afterSeq: number, limit: number, range: BandRange): Promise<FeedPage>;
  head(q: Queryable): Promise<number>;
  /** What lies after a position: each row and whether the device holds it there (a departure does not). */
  entriesAfter(q: Queryable, afterSeq: number, limit: number): Promise<{ id: string; seq: number; present: boolean }[]>;
}

export function deviceFeed(viewer: Viewer, collection: SyncCollection): DeviceFeed {
  const { orgId } = viewer;
  const audience = audienceOf(viewer, collection.name);
  const name = collection.name as CollectionName;
  if (audience) {
    return {
      scoped: true,
      audience,
      page: (q, after, limit, held) =>
        readScopePage(q, collection.table, orgId, audience, collection.name, after, limit, held && ((entry, param) => heldBandSql({ audience }, name, held, entry, param))),
      band: (q, after, limit, range) => readBandPage(q, collection.table, { audience }, orgId, name, after, limit, range),
      head: (q) => scopeHead(q, orgId, audience, collection.name),
      entriesAfter: (q, after, limit) => scopeEntriesAfter(q, orgId, audience, collection.name, after, limit),
    };
  }
  return {
    scoped: false,
    audience: null,
    page: (q, after, limit, held) => readFeedPage(q, collection.table, orgId, after, limit, held && ((entry, param) => heldBandSql('table', name, held, entry, param))),
    band: (q, after, limit, range) => readBandPage(q, collection.table, 'table', orgId, name, after, limit, range),
    head: (q) => feedHead(q, collection.table, orgId),
    entriesAfter: async (q, after, limit) => (await feedIdsAfter(q, collection.table, orgId, after, limit)).map((r) => ({ ...r, present: true })),
  };
}
