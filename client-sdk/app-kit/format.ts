import type { Customer, Service } from '../../shared/index.js';

export type ChemicalReading = NonNullable<Service['chemicalReadings']>;

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

/** A visit is done once it has an end, under way once it started, scheduled before that. */
export function visitStatus(visit: Pick<Service, 'startTime' | 'endTime'>, now = Date.now()): VisitStatus {
  if (visit.endTime) return 'done';
  if (visit.startTime && Date.parse(visit.startTime) <= now) return 'in progress';
  return 'scheduled';
}

/**
 * Ranges a residential pool should be in (the usual recommendations for chlorine pools); a
 * reading outside its range is highlighted wherever it is shown.
 */
export const READING_RANGES: Partial<Record<keyof ChemicalReading, { label: string; min: number; max: number; unit: string }>> = {
  freeChlorine: { label: 'Free chlorine', min: 1, max: 5, unit: 'ppm' },
  ph: { label: 'pH', min: 7.2, max: 7.8, unit: '' },
  totalAlkalinity: { label: 'Alkalinity', min: 80, max: 120, unit: 'ppm' },
  calciumHardness: { label: 'Calcium hardness', min: 200, max: 400, unit: 'ppm' },
  cyanuricAcid: { label: 'Cyanuric acid', min: 30, max: 80, unit: 'ppm' },
  salt: { label: 'Salt', min: 2700, max: 3400, unit: 'ppm' },
};

export interface ReadingView {
  field: keyof ChemicalReading;
  label: string;
  value: number;
  unit: string;
  outOfRange: boolean;
}

/** The readings a visit has, in a fixed order, each marked when out of range. */
export function readingsOf(readings: Partial<ChemicalReading> | null | undefined): ReadingView[] {
  if (!readings) return [];
  const views: ReadingView[] = [];
  for (const [field, range] of Object.entries(READING_RANGES) as [keyof ChemicalReading, NonNullable<(typeof READING_RANGES)[keyof ChemicalReading]>][]) {
    const value = readings[field];
    if (typeof value !== 'number') continue;
    views.push({ field, label: range.label, value, unit: range.unit, outOfRange: value < range.min || value > range.max });
  }
  if (typeof readings.temperature === 'number') views.push({ field: 'temperature', label: 'Water', value: readings.temperature, unit: '°F', outOfRange: false });
  return views;
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
