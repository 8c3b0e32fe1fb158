import { useEffect, useState } from 'react';
import type { RxCollection, RxDocument } from 'rxdb';
import { throttleTime } from 'rxjs';
import { timeKey, type DocumentOf } from '../../shared/index.js';
import { collectionOf, documentOf, type ReplicaDocument } from '../replica/database.js';
import { useSession } from './hooks.js';

/**
 * The visits whose start lies in [from, to), in start order, as a query of the replica's
 * `startKey` index (shared/sync/replica-keys.ts): a day is a range of the index, not a read of every
 * visit. Visits without a start have an empty key and are never in a range.
 */
export function visitsBetween(visits: RxCollection<ReplicaDocument<'services'>>, from: string, to: string) {
  return visits.find({ selector: { startKey: { $gte: timeKey(from), $lt: timeKey(to) } }, sort: [{ startKey: 'asc' }] });
}

/**
 * How long a burst of changes is gathered before the board sees it: a first sync writes pages of a
 * thousand documents, and a page that touches the range should cost one recount, not one per
 * document. Short enough for a live change to show within a quarter of a second.
 */
const SETTLE_MS = 100;

/**
 * Each stored visit as views read it, made once per RxDocument: RxDB makes a new one for each
 * revision of a visit, so the same RxDocument is the same visit. A range shown again (a week's
 * 13,000 visits, from RxDB's query cache) is then not copied again; the views only read these.
 */
const plainVisits = new WeakMap<RxDocument<ReplicaDocument<'services'>>, DocumentOf<'services'>>();

export function plainVisit(doc: RxDocument<ReplicaDocument<'services'>>): DocumentOf<'services'> {
  let plain = plainVisits.get(doc);
  if (!plain) plainVisits.set(doc, (plain = documentOf('services', doc.toJSON())));
  return plain;
}

/** The replica's visits in [from, to), live; null until the first answer, or while not `enabled`. */
export function useVisitsBetween(from: string, to: string, enabled = true): DocumentOf<'services'>[] | null {
  const { client } = useSession();
  const [visits, setVisits] = useState<DocumentOf<'services'>[] | null>(null);
  useEffect(() => {
    setVisits(null);
    const collection = collectionOf(client.db, 'services');
    if (!collection || !enabled) return;
    const subscription = visitsBetween(collection, from, to)
      .$.pipe(throttleTime(SETTLE_MS, undefined, { leading: true, trailing: true }))
      .subscribe((found) => setVisits(found.map(plainVisit)));
    return () => subscription.unsubscribe();
  }, [client, from, to, enabled]);
  return visits;
}
