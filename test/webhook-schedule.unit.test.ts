import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_SCHEDULE, loadConfig } from '../server/config.js';
import { retryAfterOf } from '../server/operations/events/attempt.js';
import { retryWaitSeconds, scheduleSpanSeconds } from '../server/operations/events/schedule.js';

/** The retry schedule: about three days by default, jittered, stretched by Retry-After, and a setting. */
describe('the webhook retry schedule', () => {
  const schedule = loadConfig({}).webhooks.retrySchedule;

  it('is Standard Webhooks\' example by default: ten attempts over about 75 hours', () => {
    expect(DEFAULT_RETRY_SCHEDULE).toBe('5s,5m,30m,2h,5h,10h,14h,20h,24h');
    expect(schedule).toEqual([5, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 86_400]);
    expect(scheduleSpanSeconds(schedule) / 3600).toBeCloseTo(75.6, 1);
  });

  it('waits the scheduled time after each failed attempt, jittered by at most 20%, then gives up', () => {
    expect(retryWaitSeconds(1, schedule, null, () => 0.5)).toBe(5);
    expect(retryWaitSeconds(2, schedule, null, () => 0)).toBe(240);
    expect(retryWaitSeconds(2, schedule, null, () => 0.999999)).toBeCloseTo(360, 3);
    expect(retryWaitSeconds(9, schedule, null, () => 0.5)).toBe(86_400);
    expect(retryWaitSeconds(10, schedule, null, () => 0.5)).toBeNull();
  });

  it('waits longer when the receiver asks (Retry-After), at most a day, never shorter', () => {
    expect(retryWaitSeconds(1, schedule, 120, () => 0.5)).toBe(120);
    expect(retryWaitSeconds(3, schedule, 60, () => 0.5)).toBe(1800);
    expect(retryWaitSeconds(1, schedule, 10 * 86_400, () => 0.5)).toBe(86_400);
    expect(retryAfterOf('30')).toBe(30);
    expect(retryAfterOf(new Date(Date.now() + 90_000).toUTCString())).toBeGreaterThanOrEqual(89);
    expect(retryAfterOf('soon')).toBeNull();
  });

  it('is set by WEBHOOK_RETRY_SCHEDULE, and a bad value stops the start naming it', () => {
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '200ms, 1s,2m,1h,1d,30' }).webhooks.retrySchedule).toEqual([0.2, 1, 120, 3600, 86_400, 30]);
    expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: '5s,soon' })).toThrow(/WEBHOOK_RETRY_SCHEDULE.*"5s,soon" is not a list of waits/);
    expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: '8d' })).toThrow(/each at most 7 days/);
  });
});
