import { Alert } from '../../app-kit/components/alert.js';
import { useMemo, useState, type DragEvent } from 'react';
import { VisitCard } from '../components/visit-card.js';
import { addDays, day, sameDay, startOfWeek } from '../../app-kit/format.js';
import { useAction, useDocs, useSession } from '../../app-kit/hooks.js';
import { usePhotoLinks } from '../../app-kit/photo-links.js';
import { useTechnicians } from '../technicians.js';
import { useRangeVisits, type BoardVisit } from '../week-visits.js';

/**
 * The dispatch board: visits per technician (columns) and day (rows), today or the whole week,
 * straight from the replica, so a visit a device syncs appears as soon as it arrives. Dragging a
 * card to another cell reassigns the visit (an office-owned field) and moves it to that day.
 */
const UNASSIGNED = '';

export function BoardScreen() {
  const { client } = useSession();
  const [view, setView] = useState<'today' | 'week'>('week');
  const [weekOf, setWeekOf] = useState(() => startOfWeek(new Date()));
  const technicians = useTechnicians();
  const days = view === 'today' ? [startOfToday()] : Array.from({ length: 7 }, (_, i) => addDays(weekOf, i));
  const from = days[0]!.toISOString();
  const to = addDays(days[days.length - 1]!, 1).toISOString();
  const { visits, customers: byId, source } = useRangeVisits(from, to);
  const types = useDocs('serviceTypes', {}, []);
  const typeNames = useMemo(() => new Map((types ?? []).map((t) => [t.id, t.display])), [types]);
  const photoLinks = usePhotoLinks(visits);
  const move = useAction();

  const columns = [...technicians, ...unknownTechnicians(visits ?? [], technicians), { id: UNASSIGNED, name: 'Unassigned' }];
  const cell = (technicianId: string, date: Date) =>
    (visits ?? [])
      .filter((v) => (v.newTechnicianId ?? UNASSIGNED) === technicianId && sameDay(new Date(v.startTime!), date))
      .sort((a, b) => a.startTime!.localeCompare(b.startTime!));

  async function drop(event: DragEvent, technicianId: string, date: Date) {
    event.preventDefault();
    const id = event.dataTransfer.getData('text/x-visit-id');
    const visit = visits?.find((v) => v.id === id);
    if (!visit) return;
    await move.run(() => client.patch('services', id, { newTechnicianId: technicianId || null, startTime: onDay(visit.startTime!, date) }));
  }

  return (
    <section aria-labelledby="board-title" className="board">
      <div className="toolbar">
        <h1 id="board-title">Dispatch board</h1>
        <div role="group" aria-label="View">
          <button type="button" aria-pressed={view === 'today'} onClick={() => setView('today')}>
            Today
          </button>
          <button type="button" aria-pressed={view === 'week'} onClick={() => setView('week')}>
            Week
          </button>
        </div>
        {view === 'week' && (
          <div role="group" aria-label="Week">
            <button type="button" onClick={() => setWeekOf(addDays(weekOf, -7))}>
              ← Previous week
            </button>
            <span className="week-label">Week of {day(weekOf.toISOString())}</span>
            <button type="button" onClick={() => setWeekOf(addDays(weekOf, 7))}>
              Next week →
            </button>
          </div>
        )}
        <span className="count" data-testid="board-count" data-source={source ?? undefined}>
          {visits === null ? 'Loading…' : `${visits.length} visit${visits.length === 1 ? '' : 's'}`}
        </span>
      </div>
      <Alert message={move.error} />
      <div className="grid-scroll">
        <table className="board-grid">
          <thead>
            <tr>
              <th scope="col">Day</th>
              {columns.map((t) => (
                <th scope="col" key={t.id}>
                  {t.name}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {days.map((date) => (
              <tr key={date.toISOString()} className={sameDay(date, new Date()) ? 'today' : undefined}>
                <th scope="row">{day(date.toISOString())}</th>
                {columns.map((t) => (
                  <td
                    key={t.id}
                    data-technician={t.id}
                    data-day={date.toISOString()}
                    onDragOver={(e) => e.preventDefault()}
                    onDrop={(e) => void drop(e, t.id, date)}
                    aria-label={`${t.name}, ${day(date.toISOString())}`}
                  >
                    {cell(t.id, date).map((visit) => (
                      <VisitCard key={visit.id} visit={visit} customer={byId.get(visit.customerId ?? '')} typeName={typeNames.get(visit.typeId ?? '')} photoLinks={photoLinks} />
                    ))}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function startOfToday(): Date {
  const now = new Date();
  return new Date(now.getFullYear(), now.getMonth(), now.getDate());
}

/** The same time of day on another date (local time). */
export function onDay(iso: string, date: Date): string {
  const at = new Date(iso);
  const moved = new Date(date.getFullYear(), date.getMonth(), date.getDate(), at.getHours(), at.getMinutes(), at.getSeconds());
  return moved.toISOString();
}

/** Technicians named by visits but not in the list (e.g. the list was not fetched yet, offline). */
function unknownTechnicians(visits: BoardVisit[], known: { id: string }[]) {
  const ids = new Set(known.map((t) => t.id));
  const missing = [...new Set(visits.flatMap((v) => (v.newTechnicianId && !ids.has(v.newTechnicianId) ? [v.newTechnicianId] : [])))];
  return missing.map((id) => ({ id, name: `Technician ${id.slice(0, 6)}` }));
}
