import type { RxCollection } from 'rxdb';
import { combineLatest, map, type Observable } from 'rxjs';
import type { QueuedPhoto } from '../replica/local-collections.js';
import type { PendingChange } from '../replica/local-collections.js';

/**
 * Since when the oldest work made on this device has waited for the server: the first unsent
 * change of a document (an pending change keeps the time of its first change until acknowledged)
 * or the oldest photo waiting for upload. Null when nothing waits. Refused changes and photos are
 * not waiting (they are reported as refused); what waits is what a lost device would lose.
 */
export function unsyncedSince$(pending: RxCollection<PendingChange>, photos: RxCollection<QueuedPhoto>): Observable<string | null> {
  const oldestChange = pending.findOne({ selector: { refused: null }, sort: [{ updatedAt: 'asc' }] }).$;
  const oldestPhoto = photos.findOne({ selector: { failure: null }, sort: [{ queuedAt: 'asc' }] }).$;
  return combineLatest([oldestChange, oldestPhoto]).pipe(
    map(([change, photo]) => {
      const times = [change?.updatedAt, photo?.queuedAt].filter((t): t is string => typeof t === 'string');
      return times.length ? times.sort()[0]! : null;
    }),
  );
}
