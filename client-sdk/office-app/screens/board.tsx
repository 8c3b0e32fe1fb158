import { useCallback, useDeferredValue, useMemo, useRef, useState } from 'react';
import { Alert } from '../../app-kit/components/alert.js';
import { Field } from '../../app-kit/components/field.js';
import { addDays, day, startOfWeek } from '../../app-kit/format.js';
import { useAction, useDocs, useObservable, useSession } from '../../app-kit/hooks.js';
import { replicaHolds, useBoardRange } from '../board/board-data.js';
import { useReadAhead, type BoardRangeKey } from '../board/read-ahead.js';
import { DayView } from '../board/day-view.js';
import { dayRows, filterRoutes, routesOf, weekRows, type Grouping, type Route } from '../board/routes.js';
import { WeekView } from '../board/week-view.js';
import type { SyncStatus } from '../../status.js';
import { useTechnicians } from '../technicians.js';

/**
 * The dispatch board, for a company of a few technicians or of two hundred: a day as one route per
 * technician (done, to do, late, first and last stop; a route opens into its visits), or a week as
 * visits per technician and day (a cell opens the day). Filtered by technician or customer, grouped
 * by zone. A visit dragged onto another route is reassigned (an office-owned field); its page moves
 * it to another day or technician without a mouse.
 */
type View = 'day' | 'week';

export function BoardScreen() {
  const { client, viewer } = useSession();
  const [view, setView] = useState<View>('day');
  const [date, setDate] = useState(() => startOfDay(new Date()));
  const [filter, setFilter] = useState('');
  const [grouping, setGrouping] = useState<Grouping>('none');
  const [reveal, setReveal] = useState<string | null>(null);
  const technicians = useTechnicians();
  const days = daysOf(view, date);
  const { from, to } = rangeOf(view, date);
  const { visits, customers, source, waiting } = useBoardRange(from, to, view === 'day');
  const status = useObservable(() => client.sync.status$, null, [client]);
  useReadAhead(source === 'replica' ? nextRanges(view, date).filter((r) => readableAhead(r, status, viewer.syncWindowDays)) : []);
  const types = useDocs('serviceTypes', {}, []);
  const typeNames = useMemo(() => new Map((types ?? []).map((t) => [t.id, t.display])), [types]);
  const previous = useRef<ReadonlyMap<string, Route>>(new Map());
  const routes = useMemo(() => {
    if (view !== 'day' || !visits) return null;
    const next = routesOf(visits, technicians, customers, Date.now(), previous.current);
    previous.current = new Map(next.map((r) => [r.technicianId, r]));
    return next;
  }, [view, visits, technicians, customers]);
  const typed = useDeferredValue(filter);
  const rows = useMemo(() => (routes ? dayRows(filterRoutes(routes, typed, customers), grouping) : null), [routes, typed, customers, grouping]);
  const week = useMemo(() => (view === 'week' && visits ? weekRows(visits, technicians, days) : null), [view, visits, technicians, from]);
  const filteredWeek = useMemo(() => {
    const words = typed.toLowerCase().split(/\s+/).filter(Boolean);
    return week && words.length ? week.filter((r) => words.every((w) => r.name.toLowerCase().includes(w))) : week;
  }, [week, typed]);
  const move = useAction();
  const reassign = useCallback((visitId: string, technicianId: string) => void move.run(() => client.patch('services', visitId, { newTechnicianId: technicianId || null })), [client, move.run]);

  const shift = (by: number) => setDate(addDays(date, view === 'day' ? by : by * 7));
  const openDay = (d: Date, technicianId: string) => {
    setDate(d);
    setView('day');
    setReveal(technicianId);
  };
  const done = visits?.filter((v) => v.endTime).length ?? 0;

  return (
    <section aria-labelledby="board-title" className="board">
      <div className="toolbar">
        <h1 id="board-title">Dispatch board</h1>
        <div role="group" aria-label="View">
          <button type="button" aria-pressed={view === 'day' && sameDate(date, new Date())} onClick={() => (setView('day'), setDate(startOfDay(new Date())))}>
            Today
          </button>
          <button type="button" aria-pressed={view === 'day'} onClick={() => setView('day')}>
            Day
          </button>
          <button type="button" aria-pressed={view === 'week'} onClick={() => setView('week')}>
            Week
          </button>
        </div>
        <div role="group" aria-label={view === 'day' ? 'Day' : 'Week'} className="date-nav">
          <button type="button" onClick={() => shift(-1)}>
            ← {view === 'day' ? 'Previous day' : 'Previous week'}
          </button>
          <span className="week-label" data-testid="board-date">
            {view === 'day' ? day(date.toISOString()) : `Week of ${day(days[0]!.toISOString())}`}
          </span>
          <button type="button" onClick={() => shift(1)}>
            {view === 'day' ? 'Next day' : 'Next week'} →
          </button>
        </div>
        <span className="count" data-testid="board-count" data-source={source ?? undefined}>
          {visits === null ? (waiting ?? 'Loading…') : `${visits.length} visit${visits.length === 1 ? '' : 's'}, ${done} done`}
        </span>
      </div>
      <div className="toolbar filters">
        <Field label={view === 'day' ? 'Filter by technician or customer' : 'Filter by technician'}>
          <input type="search" value={filter} onChange={(e) => setFilter(e.target.value)} />
        </Field>
        {view === 'day' && (
          <Field label="Group">
            <select value={grouping} onChange={(e) => setGrouping(e.target.value as Grouping)}>
              <option value="none">By technician</option>
              <option value="zone">By zone</option>
            </select>
          </Field>
        )}
      </div>
      <Alert message={move.error} />
      {rows && <DayView rows={rows} customers={customers} typeNames={typeNames} onReassign={reassign} reveal={reveal} />}
      {filteredWeek && <WeekView rows={filteredWeek} days={days} onOpenDay={openDay} />}
    </section>
  );
}

const daysOf = (view: View, date: Date): Date[] => (view === 'day' ? [date] : Array.from({ length: 7 }, (_, i) => addDays(startOfWeek(date), i)));

/** The board's range of a view at a date, as `useBoardRange` is asked for it. */
function rangeOf(view: View, date: Date): BoardRangeKey {
  const days = daysOf(view, date);
  return { from: days[0]!.toISOString(), to: addDays(days.at(-1)!, 1).toISOString(), withCustomers: view === 'day' };
}

/**
 * Whether a range is read ahead now: once the replica holds it, and a week (13,000 visits for a
 * 200-technician company) only once the first sync is done. RxDB reads a query again whenever the
 * collection is written while it reads, and a week read during the sync's last pages was read again
 * after each page, to the end of the sync (the sync took 8-11 s longer on a loaded machine); a day
 * is read between two pages.
 */
function readableAhead(range: BoardRangeKey, status: SyncStatus | null, windowDays: number | null | undefined): boolean {
  return replicaHolds(status, range.from, range.to, windowDays) && (range.withCustomers || !!status?.firstSyncDone);
}

/**
 * What a dispatcher may open next, the likeliest first: from a day, the next day, its week, the day
 * before, and the week of the next or the day before where it is another (a Sunday's next day is in
 * the next week, whose Week button it then shows); from a week, the next and the one before.
 */
function nextRanges(view: View, date: Date): BoardRangeKey[] {
  if (view === 'week') return [rangeOf('week', addDays(date, 7)), rangeOf('week', addDays(date, -7))];
  const next = addDays(date, 1);
  const before = addDays(date, -1);
  const ranges = [rangeOf('day', next), rangeOf('week', date), rangeOf('week', next), rangeOf('day', before), rangeOf('week', before)];
  return ranges.filter((r, i) => ranges.findIndex((o) => o.from === r.from && o.to === r.to) === i);
}

function startOfDay(date: Date): Date {
  return new Date(date.getFullYear(), date.getMonth(), date.getDate());
}

const sameDate = (a: Date, b: Date) => startOfDay(a).getTime() === startOfDay(b).getTime();

