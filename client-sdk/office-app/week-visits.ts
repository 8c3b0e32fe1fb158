import { useEffect, useMemo, useState } from 'react';
import type { Customer, Service } from '../../shared/index.js';
import { useDocs, useSession } from './hooks.js';

/**
 * The visits of a date range for the board, and their customers.
 *
 * The replica is the source of truth and what keeps the board live and working offline. But a
 * range query there reads every visit: RxDB cannot index a nullable field such as startTime, and
 * reading 50,000 visits out of IndexedDB alone takes over a second in Chromium (see the README's
 * benchmarks). So while that first replica answer is on its way, the same range is asked of the
 * server (a few pages by index), and the board shows that; the replica's answer replaces it as
 * soon as it arrives and stays live from then on. Offline, the board waits for the replica.
 */
const PAGE = 100;
const RANGE = `query OfficeBoardRange($from: DateTime!, $to: DateTime!, $after: String) {
  infiniteServices(first: ${PAGE}, after: $after, sort: {field: START_TIME, direction: ASC}, selector: {filters: {startTime: {gte: $from, lt: $to}}}) {
    edges { node {
      id customerId typeId newTechnicianId startTime endTime updatedAt
      chemicalReadings { freeChlorine ph totalAlkalinity calciumHardness cyanuricAcid salt temperature }
      photos { id url caption size }
      customer { id firstName lastName streetAddress city state zipCode }
    } }
    pageInfo { hasNextPage endCursor }
  }
}`;

type ServerVisit = Service & { customer: Customer | null };

export interface WeekVisits {
  visits: Service[] | null;
  customers: Map<string, Customer>;
  source: 'replica' | 'server' | null;
}

export function useRangeVisits(from: string, to: string): WeekVisits {
  const local = useDocs<Service>('services', { startTime: { $gte: from, $lt: to } }, [from, to]);
  const early = useServerRange(from, to, local === null);
  const customerIds = useMemo(() => [...new Set((local ?? []).flatMap((v) => (v.customerId ? [v.customerId] : [])))].sort(), [local]);
  const localCustomers = useDocs<Customer>('customers', local ? { id: { $in: customerIds } } : null, [customerIds.join()]);
  return useMemo(() => {
    if (local) return { visits: local, customers: new Map((localCustomers ?? []).map((c) => [c.id, c])), source: 'replica' };
    if (early) {
      const customers = new Map(early.flatMap((v) => (v.customer ? [[v.customer.id, v.customer] as const] : [])));
      return { visits: early, customers, source: 'server' };
    }
    return { visits: null, customers: new Map(), source: null };
  }, [local, localCustomers, early]);
}

/** The range from the server, page by page, while `wanted`; null offline or once not wanted. */
function useServerRange(from: string, to: string, wanted: boolean): ServerVisit[] | null {
  const { api } = useSession();
  const [visits, setVisits] = useState<ServerVisit[] | null>(null);
  useEffect(() => {
    setVisits(null);
    if (!wanted) return;
    let current = true;
    void (async () => {
      const all: ServerVisit[] = [];
      let after: string | null = null;
      do {
        const page: RangePage = await api.graphql<RangePage>(RANGE, { from, to, after });
        all.push(...page.infiniteServices.edges.map((e) => e.node));
        after = page.infiniteServices.pageInfo.hasNextPage ? page.infiniteServices.pageInfo.endCursor : null;
      } while (after && current);
      if (current) setVisits(all);
    })().catch(() => {}); // offline: the replica's answer is the board's
    return () => {
      current = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api, from, to, wanted]);
  return visits;
}

interface RangePage {
  infiniteServices: { edges: { node: ServerVisit }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
}
