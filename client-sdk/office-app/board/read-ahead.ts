import { useEffect } from 'react';
import { Subscription, type Observable } from 'rxjs';
import { idParts, useSession } from '../../app-kit/hooks.js';
import { plainVisit, visitsBetween } from '../../app-kit/visit-range.js';
import { collectionOf } from '../../replica/database.js';
import { customerIdsOf } from './board-data.js';

/** A range of the board as `useBoardRange` asks for it. */
export interface BoardRangeKey {
  from: string;
  to: string;
  /** Whether its view shows the visits' customers (the day's routes do, the week's counts do not). */
  withCustomers: boolean;
}

/**
 * Reads ahead, while the page is idle, the ranges a dispatcher is likely to open next (the board
 * passes those the replica holds already: the next day, the week and the day before, or the next
 * and previous week), one after another: their visits, and the customers a day's routes name, as
 * the same queries the board asks (`useVisitsBetween`, `useDocsByIds`). Each query stays subscribed
 * while the board shows the range they are read around, so RxDB keeps its answer current from the
 * changes written meanwhile (the rest of a first sync, another office user's move) instead of
 * reading it again, and the first switch to one of them shows it from memory. Without this, that
 * switch waited for IndexedDB to read the range: 2,600 visits and their 2,600 customers for a day
 * of a 200-technician company, 13,000 visits for its week, 0.5-1 s on a loaded machine, nearly all
 * of it in the browser's IndexedDB backend, not on the page.
 */
export function useReadAhead(ranges: readonly BoardRangeKey[]): void {
  const { client } = useSession();
  const key = ranges.map((r) => `${r.from}/${r.to}/${r.withCustomers ? 1 : 0}`).join(',');
  useEffect(() => {
    const visits = collectionOf(client.db, 'services');
    const customers = collectionOf(client.db, 'customers');
    if (!visits || !customers) return;
    const held = new Subscription();
    const readAll = async () => {
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      for (const range of ranges) {
        await whenIdle();
        if (held.closed) return;
        const found = await firstAnswer(visitsBetween(visits, range.from, range.to).$, held);
        // The visits as the view will read them, made now rather than on the switch (13,000 for a week).
        const plain = found.map(plainVisit);
        if (!range.withCustomers) continue;
        for (const part of idParts(customerIdsOf(plain))) {
          if (held.closed) return;
          await firstAnswer(customers.findByIds(part).$, held);
        }
      }
    };
    // A read that fails (the replica closed as the user signs out) costs only the later switch its head start.
    readAll().catch(() => {});
    return () => held.unsubscribe();
    // `key` stands for the ranges (a new array every render).
  }, [client, key]);
}

/**
 * How long the board waits before reading ahead, after a switch or as more ranges become readable
 * (the first sync's end): a dispatcher stepping on at once is not held up by reads of ranges
 * stepped past, nor a click just after the sync by the weeks' reads.
 */
const SETTLE_MS = 1000;

/** Subscribes to `answers` for as long as `held` is, and resolves with the first answer (never, if `held` ends first). */
function firstAnswer<T>(answers: Observable<T>, held: Subscription): Promise<T> {
  return new Promise((resolve, reject) => {
    if (!held.closed) held.add(answers.subscribe({ next: resolve, error: reject }));
  });
}

/** Resolves when the page is next idle (a frame drawn, no input waiting), or after a second at most. */
function whenIdle(): Promise<void> {
  return new Promise((resolve) => {
    if (typeof requestIdleCallback === 'function') requestIdleCallback(() => resolve(), { timeout: 1000 });
    else setTimeout(resolve, 0);
  });
}
