import { concatMap, filter, map, startWith, type Observable } from 'rxjs';
import { PRIORITY_BANDS, type HeldBand, type PriorityName } from '../../shared/index.js';
import type { RxLocalDocument } from 'rxdb';
import type { ReplicaDatabase } from '../replica/database.js';

/**
 * How far this replica's first sync has come: which priority bands (shared/sync/priorities.ts)
 * are on the device, and whether every collection has been pulled to the end of its feed once.
 * Kept in the replica's local documents, so an app opened offline after a first sync knows its
 * route is there, and a first sync interrupted after its bands does not pull them again.
 */
export interface FirstSyncState {
  /** Bands on the device, in band order; every band once `done`. */
  ready: PriorityName[];
  /** Every collection pulled to the end at least once. */
  done: boolean;
  /** The last band on the device, as the full pull names it to leave out what the band brought (absent: none, or a replica from before). */
  held?: HeldBand;
}

const KEY = 'first-sync';

/**
 * The first sync's progress as the replica holds it, now and whenever it changes, whichever tab
 * of a shared replica moved it (replication/README.md).
 */
export function firstSyncState$(db: ReplicaDatabase): Observable<Pick<FirstSyncState, 'ready' | 'done'>> {
  return localDocument$<FirstSyncState>(db, KEY).pipe(map((doc) => ({ ready: doc ? [...doc.get('ready')] : [], done: doc ? doc.get('done') : false })));
}

/**
 * A local document of the database, now and after each write of it (by any tab: RxDB passes other
 * instances' writes into the same stream). Not RxDB's `getLocal$`: it follows the database's
 * change events in their app form (`db.$`), which RxDB 17.6 keeps for each written batch in a
 * module-wide cache it never empties, so a client that held it open kept every batch of its life
 * (50,000 synced visits left their events behind), and it ran two async steps for every change of
 * every collection. The raw batches say which local document changed: only then is it read.
 */
function localDocument$<T extends object>(db: ReplicaDatabase, key: string): Observable<RxLocalDocument<ReplicaDatabase, T> | null> {
  const changed$ = db.eventBulks$.pipe(filter((bulk) => bulk.isLocal && !bulk.collectionName && bulk.events.some((e) => e.documentId === key)));
  return changed$.pipe(
    startWith(null),
    concatMap(() => db.getLocal<T>(key)),
  );
}

export class FirstSync {
  private state: FirstSyncState = { ready: [], done: false };

  private constructor(
    private readonly db: ReplicaDatabase,
    private readonly changed: (state: FirstSyncState) => void,
  ) {}

  static async open(db: ReplicaDatabase, changed: (state: FirstSyncState) => void): Promise<FirstSync> {
    const first = new FirstSync(db, changed);
    const stored = await db.getLocal<FirstSyncState>(KEY);
    if (stored) first.state = { ready: [...stored.get('ready')], done: stored.get('done'), held: stored.get('held') ?? undefined };
    changed(first.state);
    return first;
  }

  get done(): boolean {
    return this.state.done;
  }

  /** The bands still to pull, in order (none once the first sync is done). */
  pending(): PriorityName[] {
    return this.state.done ? [] : PRIORITY_BANDS.map((b) => b.name).filter((name) => !this.state.ready.includes(name));
  }

  /** The band that holds what the full pull may leave out (none once the first sync is done: the feed is past it). */
  get held(): HeldBand | undefined {
    return this.state.done ? undefined : this.state.held;
  }

  /**
   * A band is on the device. The bands grow (this week holds today), so the last one is what the
   * full pull names; one that does not hold the band before it names nothing of that one, which
   * then comes again in the feed (only slower).
   */
  async bandReady(name: PriorityName, held?: HeldBand): Promise<void> {
    if (this.state.ready.includes(name)) return;
    await this.save({ ready: PRIORITY_BANDS.map((b) => b.name).filter((b) => b === name || this.state.ready.includes(b)), done: false, ...(held ?? this.state.held ? { held: held ?? this.state.held } : {}) });
  }

  /** Every collection reached the end of its feed: the whole scope is on the device. */
  async completed(): Promise<void> {
    if (this.state.done) return;
    await this.save({ ready: PRIORITY_BANDS.map((b) => b.name), done: true });
  }

  /** Nothing is on the device any more (its synced documents were wiped): the next sync is a first sync again, bands first. */
  async reset(): Promise<void> {
    await this.save({ ready: [], done: false });
  }

  private async save(state: FirstSyncState): Promise<void> {
    await this.db.upsertLocal(KEY, state);
    this.state = state;
    this.changed(state);
  }
}
