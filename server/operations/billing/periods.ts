import { z } from 'zod';
import { errors } from '../../../shared/index.js';

/**
 * Billing's calendar: a period is two calendar dates (YYYY-MM-DD), both included, read in the
 * organization's time zone; an invoice is issued on the day it is finalized there.
 */
export interface Period {
  start: string;
  end: string;
}

const DAY_MS = 86_400_000;

export const CalendarDate = z.iso.date();

/** A period from untrusted input: both dates real, the end not before the start, at most 366 days. */
export function checkedPeriod(start: string, end: string): Period {
  if (end < start) throw errors.badInput(`periodEnd: ${end} is before periodStart ${start}`, { fields: ['periodEnd'] });
  if (daysBetween(start, end) > 366) throw errors.badInput('periodEnd: a period is at most 366 days', { fields: ['periodEnd'] });
  return { start, end };
}

const utc = (date: string) => Date.parse(`${date}T00:00:00Z`);
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export function daysBetween(from: string, to: string): number {
  return Math.round((utc(to) - utc(from)) / DAY_MS);
}

export function addDays(date: string, days: number): string {
  return dateOf(utc(date) + days * DAY_MS);
}

/** Today's date in the time zone. */
export function todayIn(timeZone: string, now: Date = new Date()): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
}

/** YYYY-MM of a date. */
export const monthOf = (date: string) => date.slice(0, 7);

/** The first day of a month (YYYY-MM). */
export const firstDayOf = (month: string) => `${month}-01`;

/** The last day of a month (YYYY-MM). */
export function lastDayOf(month: string): string {
  const [year, m] = month.split('-').map(Number) as [number, number];
  return dateOf(Date.UTC(year, m, 0));
}

export function nextMonth(month: string): string {
  const [year, m] = month.split('-').map(Number) as [number, number];
  return dateOf(Date.UTC(year, m, 1)).slice(0, 7);
}

/** Every month (YYYY-MM) a period touches, in order. */
export function monthsTouched(period: Period): string[] {
  const months: string[] = [];
  for (let month = monthOf(period.start); month <= monthOf(period.end); month = nextMonth(month)) months.push(month);
  return months;
}

/**
 * The months whose flat rate a run over the period bills. In arrears (the default): each month
 * that ends within the period, so a month is billed once it is over. In advance: those months
 * (when not billed yet, as for a customer's first month) and the month after each.
 */
export function flatRateMonths(period: Period, timing: 'ARREARS' | 'ADVANCE'): string[] {
  const ended = monthsTouched(period).filter((m) => lastDayOf(m) >= period.start && lastDayOf(m) <= period.end);
  if (timing === 'ARREARS') return ended;
  return [...new Set([...ended, ...ended.map(nextMonth)])];
}

const MONTH_NAMES = new Intl.DateTimeFormat('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });

/** "October 2026". */
export function monthName(month: string): string {
  return MONTH_NAMES.format(new Date(utc(firstDayOf(month))));
}
