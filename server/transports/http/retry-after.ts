import type { Response } from 'express';

/** Whole seconds (at least 1) until `ms` has passed: what `Retry-After` and its message say. */
export function secondsUntil(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/** Sets `Retry-After` for a refusal that lasts `ms` more; returns the seconds it says. */
export function retryAfter(res: Response, ms: number): number {
  const seconds = secondsUntil(ms);
  res.setHeader('Retry-After', String(seconds));
  return seconds;
}
