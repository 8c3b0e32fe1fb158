import type { Customer, Service } from '../../shared/index.js';

// The reading ranges are shared with the server's reports: one definition, in shared/chemistry.
export { READING_RANGES, readingsOf, type ChemicalReading, type ReadingRange, type ReadingView } from '../../shared/index.js';

/** How values are shown to a person: dates in the browser's zone, money in the organization's currency. */

export const customerName = (c: Pick<Customer, 'firstName' | 'lastName'> | null | undefined) =>
  c ? [c.firstName, c.lastName].filter(Boolean).join(' ') : 'Unknown customer';

export const customerAddress = (c: Pick<Customer, 'streetAddress' | 'city' | 'state' | 'zipCode'> | null | undefined) =>
  c ? [c.streetAddress, c.city, [c.state, c.zipCode].filter(Boolean).join(' ')].filter(Boolean).join(', ') : '';

export function money(amount: number | null | undefined, currency = 'USD'): string {
  if (amount == null) return '';
  return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(amount);
}

export const time = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit' }) : '');
export const day = (iso: string | null | undefined) =>
  iso ? new Date(iso).toLocaleDateString(undefined, { weekday: 'short', month: 'short', day: 'numeric' }) : '';
export const dateTime = (iso: string | null | undefined) => (iso ? `${day(iso)}, ${time(iso)}` : '');

export type VisitStatus = 'scheduled' | 'in progress' | 'done';

/** A visit not done an hour after its start (scheduled, or started and left open) is late. */
export const LATE_AFTER_MS = 60 * 60_000;

export function isLate(visit: Pick<Service, 'startTime' | 'endTime'>, now = Date.now()): boolean {
  return !visit.endTime && visit.startTime !== null && Date.parse(visit.startTime) < now - LATE_AFTER_MS;
}

/** A visit is done once it has an end, under way once it started, scheduled before that. */
export function visitStatus(visit: Pick<Service, 'startTime' | 'endTime'>, now = Date.now()): VisitStatus {
  if (visit.endTime) return 'done';
  if (visit.startTime && Date.parse(visit.startTime) <= now) return 'in progress';
  return 'scheduled';
}

/** Midnight (local) of the Monday of the week holding `date`. */
export function startOfWeek(date: Date): Date {
  const d = new Date(date.getFullYear(), date.getMonth(), date.getDate());
  d.setDate(d.getDate() - ((d.getDay() + 6) % 7));
  return d;
}

export function addDays(date: Date, days: number): Date {
  const d = new Date(date);
  d.setDate(d.getDate() + days);
  return d;
}

export const sameDay = (a: Date, b: Date) => a.getFullYear() === b.getFullYear() && a.getMonth() === b.getMonth() && a.getDate() === b.getDate();
