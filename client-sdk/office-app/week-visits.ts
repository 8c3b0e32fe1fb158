import { useEffect, useMemo, useState } from 'react';
import { OfficeBoardRangeDocument, type OfficeBoardRangeQuery } from './graphql/operations.generated.js';
import { useDocs, useSession } from '../app-kit/hooks.js';

/**
 * The visits of a date range for the board, and their customers.
 *
 * The replica is the source of truth and what keeps the board live and working offline. But a
 * range query there reads every visit: RxDB cannot index a nullable field such as startTime, and
 * reading 50,000 visits out of IndexedDB alone takes over a second in Chromium (see the README's
 * benchmarks). So while that first replica answer is on its way, the same range is asked of the
 * server (one query per day, in parallel, along its start-time index), and the board shows that;
 * the replica's read starts once that answer is in (or failed, or took over a second), so the two
 * do not compete for the page's one thread, and replaces it; it stays live from then on. Offline,
 * the server fails at once and the board waits for the replica.
 */
const PAGE = 100;

type ServerVisit = OfficeBoardRangeQuery['infiniteServices']['edges'][number]['node'];
/** A visit as the board shows it: the fields the server's range selects, which a replica visit has too. */
export type BoardVisit = Omit<ServerVisit, 'customer'>;
export type BoardCustomer = NonNullable<ServerVisit['customer']>;

export interface WeekVisits {
  visits: BoardVisit[] | null;
  customers: Map<string, BoardCustomer>;
  source: 'replica' | 'server' | null;
}

const SERVER_HEAD_START_MS = 1000;

export function useRangeVisits(from: string, to: string): WeekVisits {
  const range = `${from}|${to}`;
  const [askedFor, setAskedFor] = useState<string | null>(null);
  const replicaAsked = askedFor === range;
  const local = useDocs('services', replicaAsked ? { startTime: { $gte: from, $lt: to } } : null, [from, to, replicaAsked]);
  const early = useServerRange(from, to, local === null, () => setAskedFor(range));
  useEffect(() => {
    const timer = setTimeout(() => setAskedFor(range), SERVER_HEAD_START_MS);
    return () => clearTimeout(timer);
  }, [range]);
  const customerIds = useMemo(() => [...new Set((local ?? []).flatMap((v) => (v.customerId ? [v.customerId] : [])))].sort(), [local]);
  const localCustomers = useDocs('customers', local ? { id: { $in: customerIds } } : null, [customerIds.join()]);
  return useMemo(() => {
    if (local) return { visits: local, customers: new Map((localCustomers ?? []).map((c) => [c.id, c] as const)), source: 'replica' };
    if (early) {
      const customers = new Map(early.flatMap((v) => (v.customer ? [[v.customer.id, v.customer] as const] : [])));
      return { visits: early, customers, source: 'server' };
    }
    return { visits: null, customers: new Map(), source: null };
  }, [local, localCustomers, early]);
}

/**
 * The range from the server while `wanted`, one day per query, all at once; null offline or once
 * not wanted. `settled` is called when the answer is in or has failed.
 */
function useServerRange(from: string, to: string, wanted: boolean, settled: () => void): ServerVisit[] | null {
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
      .catch(() => {}) // offline: the replica's answer is the board's
      .finally(() => current && settled());
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
