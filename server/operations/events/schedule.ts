/**
 * When a failed attempt is tried again: the configured wait after the attempt's number
 * (WEBHOOK_RETRY_SCHEDULE; by default 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h: about
 * three days), jittered by up to 20% either way so endpoints that failed together are not retried
 * together; longer when the endpoint asked for it (Retry-After, at most a day). Null once the
 * schedule is used up: the delivery has failed.
 */
export const MAX_RETRY_AFTER_SECONDS = 86_400;

export function retryWaitSeconds(failedAttempt: number, schedule: readonly number[], retryAfterSeconds: number | null = null, random: () => number = Math.random): number | null {
  const wait = schedule[failedAttempt - 1];
  if (wait === undefined) return null;
  const jittered = wait * (0.8 + 0.4 * random());
  return retryAfterSeconds === null ? jittered : Math.max(jittered, Math.min(retryAfterSeconds, MAX_RETRY_AFTER_SECONDS));
}

/** The longest a delivery is tried for, with no jitter: the schedule's sum. */
export const scheduleSpanSeconds = (schedule: readonly number[]) => schedule.reduce((sum, wait) => sum + wait, 0);
