import { useEffect, useMemo, useState } from 'react';
import { bandRange, type PriorityName } from '../../../shared/index.js';
import type { SyncStatus } from '../../status.js';
import type { Api } from '../../app-kit/api.js';
import { useDocsByIds, useObservable, useSession } from '../../app-kit/hooks.js';
import { useVisitsBetween } from '../../app-kit/visit-range.js';
import { OfficeBoardRangeDocument, type OfficeBoardRangeQuery } from '../graphql/operations.generated.js';

/**
 * The visits of a date range for the board, and their customers, from the one source that has the
 * whole range:
 * - the replica, once it holds the range: within the office's window (shared/sync/README.md, "What a
 *   device holds") and brought by the first sync (its `today` band, its `week` band, or all of it). It is
 *   live from then on, and works offline. A range it has only in part is never shown from it, so
 *   the board never goes back to fewer visits than it showed.
 * - the server otherwise (a range before the window, or one the first sync has not reached yet,
 *   such as today's in the first seconds after signing in): the range cut into slices of time asked
 *   at once, each along the start-time index and paged to the end. The server's answer is shown
 *   until the replica holds the whole range, never a part of it.
 * Today's range is asked of the server as a new office device signs in (`askTodayEarly`, before its
 * replica has opened), so the board shows the day in about the time the server takes to answer.
 */
const PAGE = 100;
/**
 * Slices a range is asked in, at once: a day of 2,600 visits is 26 pages of 100 one after another,
 * in slices of an hour three or so each (the browser runs six at a time).
 */
const SLICES = 24;
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

/** No customers: the week's counts name none. */
const NO_CUSTOMERS: ReadonlyMap<string, BoardCustomer> = new Map();

/**
 * `withCustomers`: whether the view shows the visits' customers (the day's routes do; the week's
 * counts do not, and its 18,000 visits of the company named nearly all 13,000 customers, each read
 * from the replica on every switch to the week).
 */
export function useBoardRange(from: string, to: string, withCustomers = true): BoardRange {
  const { client, viewer } = useSession();
  const status = useObservable(() => client.sync.status$, null, [client]);
  const inWindow = inReplicaWindow(from, viewer.syncWindowDays);
  const band = bandHolding(from, to);
  const replicaHasIt = replicaHolds(status, from, to, viewer.syncWindowDays);
  const bandOnItsWay = inWindow && !replicaHasIt && band !== null && status?.state !== 'offline';

  const local = useVisitsBetween(from, to, replicaHasIt);
  const customerIds = useMemo(() => (local && withCustomers ? customerIdsOf(local) : null), [local, withCustomers]);
  const localCustomers = useDocsByIds('customers', customerIds, `${from}/${to}`);
  const remote = useServerRange(from, to, !replicaHasIt);

  return useMemo(() => {
    if (local && !withCustomers) return { visits: local, customers: NO_CUSTOMERS, source: 'replica', waiting: null };
    if (local && localCustomers) return { visits: local, customers: localCustomers, source: 'replica', waiting: null };
    if (remote) {
      const customers = new Map(remote.flatMap((v) => (v.customer ? [[v.customer.id, v.customer] as const] : [])));
      return { visits: remote, customers, source: 'server', waiting: null };
    }
    const waiting = bandOnItsWay ? `Bringing ${band === 'today' ? "today's" : "this week's"} visits to this browser…` : replicaHasIt ? 'Reading the visits…' : 'Asking the server…';
    return { visits: null, customers: new Map(), source: null, waiting };
  }, [local, localCustomers, withCustomers, remote, bandOnItsWay, replicaHasIt, band]);
}

/** The customers a range's visits name, each once, in id order (the ids the board reads them by). */
export function customerIdsOf(visits: readonly { customerId?: string | null }[]): string[] {
  return [...new Set(visits.flatMap((v) => (v.customerId ? [v.customerId] : [])))].sort();
}

/** Whether a range starting at `from` lies in the office's window (`windowDays`: the server's, if it said). */
function inReplicaWindow(from: string, windowDays: number | null | undefined): boolean {
  return Date.parse(from) >= startOfDay(Date.now() - (windowDays ?? DEFAULT_WINDOW_DAYS) * 86_400_000);
}

/**
 * Whether the replica holds the whole of [from, to): the range is in the office's window and the
 * first sync is done, or the first sync's band holding the range has arrived.
 */
export function replicaHolds(status: SyncStatus | null, from: string, to: string, windowDays: number | null | undefined): boolean {
  const band = bandHolding(from, to);
  const arrived = !!status && (status.firstSyncDone || (band !== null && status.ready.includes(band)));
  return arrived && inReplicaWindow(from, windowDays);
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

/**
 * The range from the server, asked while `wanted`; null offline or until every slice is in. An
 * answer is kept for its range once no longer wanted, so the board shows it until the replica's
 * own answer is read, rather than nothing in between.
 */
function useServerRange(from: string, to: string, wanted: boolean): ServerVisit[] | null {
  const { api } = useSession();
  const range = `${from}/${to}`;
  const [answer, setAnswer] = useState<{ range: string; visits: ServerVisit[] } | null>(null);
  useEffect(() => {
    if (!wanted) return;
    let current = true;
    (takeEarly(from, to) ?? askRange(api, from, to))
      .then((visits) => current && setAnswer({ range: `${from}/${to}`, visits }))
      .catch(() => {}); // offline: nothing to show of a range the replica does not hold
    return () => {
      current = false;
    };
  }, [api, from, to, wanted]);
  // Another range forgets this one's answer: coming back to it later shows the replica, never an old answer.
  useEffect(() => () => setAnswer(null), [range]);
  return answer?.range === range ? answer.visits : null;
}

/** The visits of [from, to) from the server, in start-time order: every slice at once, each paged to its end. */
async function askRange(api: Api, from: string, to: string): Promise<ServerVisit[]> {
  const slice = async (start: string, end: string) => {
    const all: ServerVisit[] = [];
    let after: string | null = null;
    do {
      const page: OfficeBoardRangeQuery = await api.graphql(OfficeBoardRangeDocument, { from: start, to: end, first: PAGE, after });
      all.push(...page.infiniteServices.edges.map((e) => e.node));
      after = page.infiniteServices.pageInfo.hasNextPage ? page.infiniteServices.pageInfo.endCursor : null;
    } while (after);
    return all;
  };
  return (await Promise.all(slicesOf(from, to).map(([start, end]) => slice(start, end)))).flat();
}

/** [from, to) cut into SLICES equal spans of whole minutes, as ISO times. */
function slicesOf(from: string, to: string): [string, string][] {
  const start = Date.parse(from);
  const end = Date.parse(to);
  const step = Math.max(60_000, Math.ceil((end - start) / SLICES / 60_000) * 60_000);
  const slices: [string, string][] = [];
  for (let at = start; at < end; at += step) slices.push([new Date(at).toISOString(), new Date(Math.min(at + step, end)).toISOString()]);
  return slices;
}

/** Today's range asked as the office signed in, waiting for the board to take it (once). */
let early: { from: string; to: string; answer: Promise<ServerVisit[]> } | null = null;
/** An early answer older than this is asked again: the board came too late to trust it. */
const EARLY_KEPT_MS = 60_000;

/**
 * Asks the server for today's board while a new office device signs in (session.ts), before its
 * replica has opened: opening an IndexedDB replica and starting the sync takes longer than the
 * server takes to answer the day. Answers when the day is in (the session starts the replica's
 * sync then).
 */
export function askTodayEarly(api: Api): Promise<unknown> {
  const { from, to } = todayRange(new Date());
  const answer = askRange(api, from, to);
  answer.catch(() => {}); // offline: the board asks again, and says so
  early = { from, to, answer };
  setTimeout(() => early?.answer === answer && (early = null), EARLY_KEPT_MS);
  return answer;
}

function takeEarly(from: string, to: string): Promise<ServerVisit[]> | null {
  const taken = early && early.from === from && early.to === to ? early.answer : null;
  if (taken) early = null;
  return taken;
}

/** Today on the browser's clock, [midnight, next midnight), as the board's day view asks for it. */
export function todayRange(now: Date): { from: string; to: string } {
  const today = new Date(now.getFullYear(), now.getMonth(), now.getDate());
  return { from: today.toISOString(), to: new Date(today.getFullYear(), today.getMonth(), today.getDate() + 1).toISOString() };
}
