import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useRef, useState, type DragEvent } from 'react';
import { customerName, time } from '../../app-kit/format.js';
import { usePhotoLinks } from '../../app-kit/photo-links.js';
import { VisitCard } from '../components/visit-card.js';
import type { BoardCustomer, BoardVisit } from './board-data.js';
import type { DayRow, Route } from './routes.js';

/**
 * A day as a list of routes, one row per technician: what is done, to do and late, the first and
 * last stop; a row opens into the route's visits. Only the rows in view are drawn (a company of
 * 200 technicians has 2,600 visits a day; drawing them all was 118,920 DOM nodes), and a row is
 * drawn again only when its route changed. A visit dragged onto another route goes to that
 * technician, the same day.
 */
export interface DayViewProps {
  rows: readonly DayRow[];
  customers: ReadonlyMap<string, BoardCustomer>;
  typeNames: ReadonlyMap<string, string>;
  onReassign: (visitId: string, technicianId: string) => void;
  /** A technician whose route to open and scroll to (the week view's cell that opened this day). */
  reveal?: string | null;
}

const ROW_PX = 64;
const ZONE_PX = 40;

export function DayView({ rows, customers, typeNames, onReassign, reveal }: DayViewProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const virtual = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: (i) => (rows[i]!.kind === 'zone' ? ZONE_PX : ROW_PX),
    getItemKey: (i) => {
      const row = rows[i]!;
      return row.kind === 'zone' ? `zone:${row.zone}` : `route:${row.route.technicianId}`;
    },
    overscan: 6,
  });
  useEffect(() => {
    if (!reveal) return;
    const index = rows.findIndex((row) => row.kind === 'route' && row.route.technicianId === reveal);
    if (index < 0) return;
    setOpen((was) => new Set([...was, reveal]));
    virtual.scrollToIndex(index, { align: 'start' });
  }, [reveal, rows.length]);
  const toggle = (id: string) => setOpen((was) => {
    const next = new Set(was);
    if (!next.delete(id)) next.add(id);
    return next;
  });
  return (
    <div className="routes-scroll" ref={scroller} data-testid="day-view">
      <ol className="routes" style={{ height: virtual.getTotalSize() }} aria-label="Routes of the day">
        {virtual.getVirtualItems().map((item) => {
          const row = rows[item.index]!;
          return (
            <li key={item.key} data-index={item.index} ref={virtual.measureElement} style={{ transform: `translateY(${item.start}px)` }} className="route-slot">
              {row.kind === 'zone' ? (
                <h2 className="zone-heading">
                  {row.zone} <span className="muted">· {row.routes} route{row.routes === 1 ? '' : 's'}, {row.visits} visit{row.visits === 1 ? '' : 's'}</span>
                </h2>
              ) : (
                <RouteRow route={row.route} open={open.has(row.route.technicianId)} onToggle={toggle} customers={customers} typeNames={typeNames} onReassign={onReassign} />
              )}
            </li>
          );
        })}
      </ol>
    </div>
  );
}

interface RouteRowProps {
  route: Route;
  open: boolean;
  onToggle: (technicianId: string) => void;
  customers: ReadonlyMap<string, BoardCustomer>;
  typeNames: ReadonlyMap<string, string>;
  onReassign: (visitId: string, technicianId: string) => void;
}

/** One route: redrawn only when its route (or whether it is open) changed; `customers` change with any route, so they are read only when open. */
const RouteRow = memo(
  function RouteRow({ route, open, onToggle, customers, typeNames, onReassign }: RouteRowProps) {
    const [over, setOver] = useState(false);
    const first = route.visits[0];
    const last = route.visits.at(-1);
    const stop = (v: BoardVisit | undefined) => (v ? `${time(v.startTime)} ${customerName(customers.get(v.customerId ?? ''))}` : '');
    const drop = (event: DragEvent) => {
      event.preventDefault();
      setOver(false);
      const id = event.dataTransfer.getData('text/x-visit-id');
      if (id && !route.visits.some((v) => v.id === id)) onReassign(id, route.technicianId);
    };
    return (
      <section
        className={`route${open ? ' open' : ''}${over ? ' drop-over' : ''}`}
        data-technician={route.technicianId}
        aria-label={`${route.name}'s route`}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={drop}
      >
        <button type="button" className="route-head" aria-expanded={open} onClick={() => onToggle(route.technicianId)}>
          <span className="route-name">{route.name}</span>
          <span className="route-zone">{route.zone ?? ''}</span>
          <span className="route-counts" data-testid="route-counts">
            <span className="count-done">{route.done} done</span>
            <span className="count-todo">{route.toDo} to do</span>
            {route.late > 0 && <span className="count-late">{route.late} late</span>}
          </span>
          <span className="route-stops">{route.visits.length ? `${stop(first)} → ${stop(last)}` : 'No visits'}</span>
        </button>
        {open && <RouteVisits visits={route.visits} customers={customers} typeNames={typeNames} />}
      </section>
    );
  },
  (a, b) => a.route === b.route && a.open === b.open && (!b.open || a.customers === b.customers) && a.onReassign === b.onReassign && a.typeNames === b.typeNames,
);

function RouteVisits({ visits, customers, typeNames }: { visits: readonly BoardVisit[]; customers: ReadonlyMap<string, BoardCustomer>; typeNames: ReadonlyMap<string, string> }) {
  const photoLinks = usePhotoLinks(visits);
  return (
    <div className="route-visits">
      {visits.map((visit) => (
        <VisitCard key={visit.id} visit={visit} customer={customers.get(visit.customerId ?? '')} typeName={typeNames.get(visit.typeId ?? '')} photoLinks={photoLinks} />
      ))}
    </div>
  );
}
