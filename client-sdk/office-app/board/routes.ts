import { customerAddress, customerName, isLate } from '../../app-kit/format.js';
import type { Technician } from '../technicians.js';
import type { BoardCustomer, BoardVisit } from './board-data.js';

/**
 * A day of the board as a dispatcher reads it: one route per technician (and one of the visits
 * nobody has), with what is done, what is still to do and what is late, its first and last stop,
 * and the zone most of its customers are in. Pure, so the day view and its tests share it.
 */
export const UNASSIGNED = '';

export interface Route {
  /** The technician's user id, or UNASSIGNED. */
  technicianId: string;
  name: string;
  /** The zone most of the route's customers are in (null: none given). */
  zone: string | null;
  visits: readonly BoardVisit[];
  done: number;
  toDo: number;
  late: number;
  /** What identifies this state of the route: the same key, the same route (a row that need not redraw). */
  key: string;
}

/**
 * The routes of a day's visits, technicians in the order given (those with visits first), then
 * technicians named by visits but not in the list (not fetched yet, offline), then Unassigned.
 * `previous` routes whose visits are unchanged are returned as they were, so their rows stay as
 * drawn when one route changes.
 */
export function routesOf(
  visits: readonly BoardVisit[],
  technicians: readonly Technician[],
  customers: ReadonlyMap<string, BoardCustomer>,
  now: number,
  previous: ReadonlyMap<string, Route> = new Map(),
): Route[] {
  const byTechnician = new Map<string, BoardVisit[]>();
  for (const visit of visits) {
    const id = visit.newTechnicianId ?? UNASSIGNED;
    const list = byTechnician.get(id);
    if (list) list.push(visit);
    else byTechnician.set(id, [visit]);
  }
  const names = new Map(technicians.map((t) => [t.id, t.name]));
  const order = [...technicians.map((t) => t.id), ...[...byTechnician.keys()].filter((id) => id !== UNASSIGNED && !names.has(id))];
  const routes = order.map((id) => routeOf(id, names.get(id) ?? `Technician ${id.slice(0, 6)}`, byTechnician.get(id) ?? [], customers, now, previous.get(id)));
  if (byTechnician.has(UNASSIGNED)) routes.push(routeOf(UNASSIGNED, 'Unassigned', byTechnician.get(UNASSIGNED)!, customers, now, previous.get(UNASSIGNED)));
  return routes;
}

function routeOf(technicianId: string, name: string, visits: BoardVisit[], customers: ReadonlyMap<string, BoardCustomer>, now: number, before: Route | undefined): Route {
  const sorted = visits.sort((a, b) => (a.startTime ?? '').localeCompare(b.startTime ?? ''));
  let done = 0;
  let late = 0;
  for (const v of sorted) {
    if (v.endTime) done++;
    else if (isLate(v, now)) late++;
  }
  const zone = mostCommon(sorted.map((v) => customers.get(v.customerId ?? '')?.zone ?? null));
  const key = `${name}|${zone}|${late}|${sorted.map((v) => `${v.id}@${v.updatedAt}:${customers.has(v.customerId ?? '') ? 1 : 0}`).join(',')}`;
  if (before?.key === key) return before;
  return { technicianId, name, zone, visits: sorted, done, toDo: sorted.length - done, late, key };
}

function mostCommon(values: (string | null)[]): string | null {
  const counts = new Map<string, number>();
  for (const v of values) if (v) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best: string | null = null;
  for (const [value, n] of counts) if (best === null || n > counts.get(best)!) best = value;
  return best;
}

/** Routes whose technician, or one of whose customers (name or address), matches every word of `text`. */
export function filterRoutes(routes: readonly Route[], text: string, customers: ReadonlyMap<string, BoardCustomer>): Route[] {
  const words = text.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return [...routes];
  return routes.filter((route) => {
    const haystack = [route.name, ...route.visits.map((v) => {
      const c = customers.get(v.customerId ?? '');
      return `${customerName(c)} ${customerAddress(c)}`;
    })].join(' ').toLowerCase();
    return words.every((w) => haystack.includes(w));
  });
}

export type Grouping = 'none' | 'zone';

/** A row of the day view: a zone's heading, or a route. */
export type DayRow = { kind: 'zone'; zone: string; routes: number; visits: number } | { kind: 'route'; route: Route };

/** The day view's rows: routes as they come, or by zone (zones by name, routes without one last), each zone under its heading. */
export function dayRows(routes: readonly Route[], grouping: Grouping): DayRow[] {
  if (grouping === 'none') return routes.map((route) => ({ kind: 'route', route }));
  const zones = new Map<string, Route[]>();
  for (const route of routes) {
    const zone = route.zone ?? 'No zone';
    zones.set(zone, [...(zones.get(zone) ?? []), route]);
  }
  const names = [...zones.keys()].sort((a, b) => (a === 'No zone' ? 1 : b === 'No zone' ? -1 : a.localeCompare(b)));
  return names.flatMap((zone) => {
    const members = zones.get(zone)!;
    return [{ kind: 'zone' as const, zone, routes: members.length, visits: members.reduce((n, r) => n + r.visits.length, 0) }, ...members.map((route) => ({ kind: 'route' as const, route }))];
  });
}

/** A week at a glance: per technician and day, visits done and in all. */
export interface WeekRow {
  technicianId: string;
  name: string;
  days: { done: number; total: number }[];
  total: number;
}

export function weekRows(visits: readonly BoardVisit[], technicians: readonly Technician[], days: readonly Date[]): WeekRow[] {
  const dayIndex = (iso: string | null) => {
    if (!iso) return -1;
    const t = Date.parse(iso);
    for (let i = days.length - 1; i >= 0; i--) if (t >= days[i]!.getTime()) return i;
    return -1;
  };
  const rows = new Map<string, WeekRow>();
  const names = new Map(technicians.map((t) => [t.id, t.name]));
  const rowOf = (id: string) => {
    let row = rows.get(id);
    if (!row) {
      row = { technicianId: id, name: id === UNASSIGNED ? 'Unassigned' : names.get(id) ?? `Technician ${id.slice(0, 6)}`, days: days.map(() => ({ done: 0, total: 0 })), total: 0 };
      rows.set(id, row);
    }
    return row;
  };
  for (const t of technicians) rowOf(t.id);
  for (const visit of visits) {
    const i = dayIndex(visit.startTime);
    if (i < 0) continue;
    const row = rowOf(visit.newTechnicianId ?? UNASSIGNED);
    row.days[i]!.total++;
    row.total++;
    if (visit.endTime) row.days[i]!.done++;
  }
  const unassigned = rows.get(UNASSIGNED);
  rows.delete(UNASSIGNED);
  return [...rows.values(), ...(unassigned ? [unassigned] : [])];
}
