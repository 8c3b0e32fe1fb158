import { useEffect, useMemo, useState } from 'react';
import { bandRange, type PriorityName } from '../../../shared/index.js';
import { useDocsByIds, useObservable, useSession } from '../../app-kit/hooks.js';
import { useVisitsBetween } from '../../app-kit/visit-range.js';
import { OfficeBoardRangeDocument, type OfficeBoardRangeQuery } from '../graphql/operations.generated.js';

/**
 * The visits of a date range for the board, and their customers, from the one source that has the
 * whole range:
 * - the replica, once it holds the range: within the office's window (README, "What a device
 *   holds") and brought by the first sync (its `today` band, its `week` band, or all of it). It is
 *   live from then on, and works offline. A range it has only in part is never shown from it, so
 *   the board never goes back to fewer visits than it showed.
 * - the server otherwise (a range before the window, or one the first sync has not reached yet):
 *   one query per day, in parallel, along its start-time index, paged to the end.
 * While the replica's band for the range is still on its way (the first seconds after signing
 * in), nothing is asked of the server: the band is the server's answer, on its way into the replica.
 */
const PAGE = 100;
/** The office's window if the server has not said (it says in `viewer.syncWindowDays`). */
const DEFAULT_WINDOW_DAYS = 14;

type ServerVisit = OfficeBoardRangeQuery['infiniteServices']['edges'][number]['node'];
/** A visit as the board shows it: the fields the server's range selects, which a replica visit has too. */
export type BoardVisit = Omit<ServerVisit, 'customer'>;
export type BoardCustomer = NonNullable<ServerVisit['customer']>;

export interface BoardRange {
  visits: readonly BoardVisit[] | null;
  customers: ReadonlyMap<string, BoardCustomer>;
  source: 'replica' | 'server' | null;
  /** Why the board waits, in words (null when it does not). */
  waiting: string | null;
}

export function useBoardRange(from: string, to: string): BoardRange {
  const { client, viewer } = useSession();
  const status = useObservable(() => client.sync.status$, null, [client]);
  const windowDays = viewer.syncWindowDays ?? DEFAULT_WINDOW_DAYS;
  const inWindow = Date.parse(from) >= startOfDay(Date.now() - windowDays * 86_400_000);
  const band = bandHolding(from, to);
  const arrived = !!status && (status.firstSyncDone || (band !== null && status.ready.includes(band)));
  const replicaHasIt = inWindow && arrived;
  const bandOnItsWay = inWindow && !arrived && band !== null && status?.state !== 'offline';

  const local = useVisitsBetween(from, to, replicaHasIt);
  const customerIds = useMemo(() => (local ? [...new Set(local.flatMap((v) => (v.customerId ? [v.customerId] : [])))].sort() : null), [local]);
  const localCustomers = useDocsByIds('customers', customerIds);
  const remote = useServerRange(from, to, !replicaHasIt && !bandOnItsWay);

  return useMemo(() => {
    if (local && localCustomers) return { visits: local, customers: localCustomers, source: 'replica', waiting: null };
    if (remote) {
      const customers = new Map(remote.flatMap((v) => (v.customer ? [[v.customer.id, v.customer] as const] : [])));
      return { visits: remote, customers, source: 'server', waiting: null };
    }
    const waiting = bandOnItsWay ? `Bringing ${band === 'today' ? "today's" : "this week's"} visits to this browser…` : replicaHasIt ? 'Reading the visits…' : 'Asking the server…';
    return { visits: null, customers: new Map(), source: null, waiting };
  }, [local, localCustomers, remote, bandOnItsWay, replicaHasIt, band]);
}

/** The first sync's band that holds the whole range, if any (shared/sync/priorities.ts). */
function bandHolding(from: string, to: string): PriorityName | null {
  const now = new Date();
  for (const name of ['today', 'week'] as const) {
    const band = bandRange(name, now);
    if (Date.parse(from) >= Date.parse(band.from) && Date.parse(to) <= Date.parse(band.to)) return name;
  }
  return null;
}

function startOfDay(time: number): number {
  const d = new Date(time);
  return new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
}

/** The range from the server while `wanted`, one day per query, all at once; null offline or until every day is in. */
function useServerRange(from: string, to: string, wanted: boolean): ServerVisit[] | null {
  const { api } = useSession();
  const [visits, setVisits] = useState<ServerVisit[] | null>(null);
  useEffect(() => {
    setVisits(null);
    if (!wanted) return;
    let current = true;
    const day = async (start: string, end: string) => {
      const all: ServerVisit[] = [];
      let after: string | null = null;
      do {
        const page: OfficeBoardRangeQuery = await api.graphql(OfficeBoardRangeDocument, { from: start, to: end, first: PAGE, after });
        all.push(...page.infiniteServices.edges.map((e) => e.node));
        after = page.infiniteServices.pageInfo.hasNextPage ? page.infiniteServices.pageInfo.endCursor : null;
      } while (after && current);
      return all;
    };
    Promise.all(daysOf(from, to).map(([start, end]) => day(start, end)))
      .then((days) => current && setVisits(days.flat()))
      .catch(() => {}); // offline: nothing to show of a range the replica does not hold
    return () => {
      current = false;
    };
  }, [api, from, to, wanted]);
  return visits;
}

/** [start, end) of each day in the range, as ISO times (days as the browser's clock has them). */
function daysOf(from: string, to: string): [string, string][] {
  const days: [string, string][] = [];
  for (let start = new Date(from); start < new Date(to); ) {
    const end = new Date(start.getFullYear(), start.getMonth(), start.getDate() + 1);
    days.push([start.toISOString(), (end < new Date(to) ? end : new Date(to)).toISOString()]);
    start = end;
  }
  return days;
}
