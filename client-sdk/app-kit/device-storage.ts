/**
 * What the browser promises about this app's offline data. Without persistent storage a browser
 * may delete the site's IndexedDB (the replica, its unsent changes and photos) when the device
 * runs low on space, and Safari deletes it after 7 days unused unless the app is on the home
 * screen. The apps ask once at start; a refusal is shown, since the person can act on it
 * (install the app, bookmark it, use it daily).
 */
export type Persistence = 'persistent' | 'refused' | 'unsupported';

let asked: Promise<Persistence> | null = null;

/** Asks for persistent storage once per page (already granted: not asked again). */
export function askPersistentStorage(): Promise<Persistence> {
  asked ??= ask().catch((): Persistence => 'refused');
  return asked;
}

async function ask(): Promise<Persistence> {
  const storage = typeof navigator === 'undefined' ? undefined : navigator.storage;
  if (!storage?.persist) return 'unsupported';
  if (await storage.persisted?.()) return 'persistent';
  return (await storage.persist()) ? 'persistent' : 'refused';
}

/** Default hours after which work still not on the server is shown as at risk. */
export const DEFAULT_UNSYNCED_RISK_HOURS = 12;

const riskKey = (app: string) => `pool-${app}-unsynced-risk-hours`;

/** The app's setting, kept in this browser (a number of hours, fractions allowed). */
export function unsyncedRiskHours(app: string): number {
  const stored = Number(globalThis.localStorage?.getItem(riskKey(app)) ?? NaN);
  return Number.isFinite(stored) && stored > 0 ? stored : DEFAULT_UNSYNCED_RISK_HOURS;
}

export function setUnsyncedRiskHours(app: string, hours: number): void {
  if (Number.isFinite(hours) && hours > 0) localStorage.setItem(riskKey(app), String(hours));
}

/** Whether work waiting since `since` has waited longer than `hours` at `now`. */
export function atRisk(since: string | null, hours: number, now = Date.now()): boolean {
  return since !== null && now - Date.parse(since) > hours * 3_600_000;
}
