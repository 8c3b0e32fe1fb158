import { useRef } from 'react';
import { customerAddress, customerName, time, visitStatus } from '../../app-kit/format.js';
import { useDocs, useObservable, useSession } from '../../app-kit/hooks.js';
import { href, navigate } from '../../app-kit/route.js';
import { localDay, shiftDay, useDayVisits } from '../data.js';

/**
 * The day's route: the technician's visits in time order, each with its customer, address, body
 * of water and status; one tap opens the visit. Yesterday and tomorrow are a tap or a swipe away.
 * On a new phone the route shows as soon as the first sync's `today` band is in (shared/sync/README.md,
 * priority bands), while the rest of the technician's work still arrives.
 */
export function TodayScreen({ day }: { day: string | null }) {
  const shown = day ?? localDay();
  const { client } = useSession();
  const status = useObservable(() => client.sync.status$, null, [client]);
  // Which band holds the day shown: today's comes first, this week's next, the rest last.
  const band = shown === localDay() ? 'today' : 'week';
  const arrived = status ? status.firstSyncDone || status.ready.includes(band) : false;
  const dayVisits = useDayVisits(shown);
  // An empty day on a phone whose first sync has not brought it yet is not a day off.
  const visits = dayVisits?.length === 0 && !arrived ? null : dayVisits;
  const customerIds = [...new Set((visits ?? []).flatMap((v) => (v.customerId ? [v.customerId] : [])))].sort();
  const customers = useDocs('customers', { id: { $in: customerIds } }, [customerIds.join()]);
  const byId = new Map((customers ?? []).map((c) => [c.id, c]));
  const swipe = useRef<number | null>(null);
  const go = (by: number) => navigate('day', shiftDay(shown, by));
  const label = new Date(`${shown}T12:00:00`).toLocaleDateString(undefined, { weekday: 'long', month: 'long', day: 'numeric' });
  const done = (visits ?? []).filter((v) => v.endTime).length;
  return (
    <section
      aria-labelledby="day-title"
      onTouchStart={(e) => (swipe.current = e.touches[0]?.clientX ?? null)}
      onTouchEnd={(e) => {
        const dx = (e.changedTouches[0]?.clientX ?? 0) - (swipe.current ?? 0);
        if (swipe.current !== null && Math.abs(dx) > 70) go(dx < 0 ? 1 : -1);
        swipe.current = null;
      }}
    >
      <div className="day-nav">
        <button type="button" onClick={() => go(-1)} aria-label="Previous day">
          ‹
        </button>
        <h1 id="day-title">{shown === localDay() ? `Today, ${label}` : label}</h1>
        <button type="button" onClick={() => go(1)} aria-label="Next day">
          ›
        </button>
      </div>
      {visits === null ? (
        <p className="loading" role="status">
          {status && !arrived ? 'Bringing your route to this phone…' : 'Loading the route…'}
        </p>
      ) : visits.length === 0 ? (
        <p className="empty">No visits on this day.</p>
      ) : (
        <>
          <p className="summary" data-testid="route-summary">
            {visits.length} visit{visits.length === 1 ? '' : 's'}, {done} done
          </p>
          {status && !status.firstSyncDone && (
            <p className="arriving" role="status" data-testid="history-arriving">
              Earlier visits and the rest of your customers are still arriving.
            </p>
          )}
          <ol className="route">
            {visits.map((visit) => {
              const customer = visit.customerId ? byId.get(visit.customerId) : undefined;
              const status = visitStatus(visit);
              const water = customer?.pool?.kind ? `${customer.pool.kind.toLowerCase()}${customer.pool.volumeGallons ? `, ${customer.pool.volumeGallons.toLocaleString()} gal` : ''}` : null;
              return (
                <li key={visit.id}>
                  <a href={href('visit', visit.id)} className={`stop status-${status.replace(' ', '-')}`} data-visit-id={visit.id}>
                    <span className="when">{time(visit.startTime)}</span>
                    <span className="who">{customerName(customer)}</span>
                    <span className="where">{customerAddress(customer)}</span>
                    {water && <span className="water">{water}</span>}
                    <span className={`badge ${status.replace(' ', '-')}`}>{status}</span>
                  </a>
                </li>
              );
            })}
          </ol>
        </>
      )}
    </section>
  );
}
