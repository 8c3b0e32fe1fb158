import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useRef } from 'react';
import { day, sameDay } from '../../app-kit/format.js';
import type { WeekRow } from './routes.js';

/**
 * A week at a glance: a row per technician, a column per day, each cell the day's visits (done of
 * all); a cell opens that day. Only the rows in view are drawn.
 */
const ROW_PX = 40;

export function WeekView({ rows, days, onOpenDay }: { rows: readonly WeekRow[]; days: readonly Date[]; onOpenDay: (date: Date, technicianId: string) => void }) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtual = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_PX, getItemKey: (i) => rows[i]!.technicianId, overscan: 8 });
  const today = new Date();
  return (
    <div className="week-scroll" ref={scroller} data-testid="week-view">
      <table className="week-grid" aria-label="Visits per technician and day">
        <thead>
          <tr>
            <th scope="col">Technician</th>
            {days.map((d) => (
              <th scope="col" key={d.toISOString()} className={sameDay(d, today) ? 'today' : undefined}>
                {day(d.toISOString())}
              </th>
            ))}
            <th scope="col">Week</th>
          </tr>
        </thead>
        <tbody>
          {virtual.getVirtualItems().length > 0 && <tr aria-hidden="true" style={{ height: virtual.getVirtualItems()[0]!.start }} />}
          {virtual.getVirtualItems().map((item) => (
            <WeekLine key={item.key} row={rows[item.index]!} days={days} onOpenDay={onOpenDay} />
          ))}
          {virtual.getVirtualItems().length > 0 && <tr aria-hidden="true" style={{ height: virtual.getTotalSize() - virtual.getVirtualItems().at(-1)!.end }} />}
        </tbody>
      </table>
    </div>
  );
}

const WeekLine = memo(function WeekLine({ row, days, onOpenDay }: { row: WeekRow; days: readonly Date[]; onOpenDay: (date: Date, technicianId: string) => void }) {
  return (
    <tr data-technician={row.technicianId} style={{ height: ROW_PX }}>
      <th scope="row">{row.name}</th>
      {row.days.map((cell, i) => (
        <td key={i}>
          {cell.total > 0 ? (
            <button type="button" className="day-count" onClick={() => onOpenDay(days[i]!, row.technicianId)} aria-label={`${row.name}, ${day(days[i]!.toISOString())}: ${cell.done} of ${cell.total} done`}>
              {cell.done}/{cell.total}
            </button>
          ) : (
            <span className="muted">·</span>
          )}
        </td>
      ))}
      <td className="week-total">{row.total}</td>
    </tr>
  );
});
