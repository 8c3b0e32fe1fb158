import { useEffect, useState } from 'react';
import { distinctUntilChanged, map } from 'rxjs';
import type { PoolClient } from '../index.js';
import { takeAtSafeMoment } from './safe-moment.js';

/**
 * A newer version of an app, found and taken: the technician app's waiting service worker
 * (technician-app/app-update.ts), the office app's new build on the server (office-app/app-update.ts).
 */
export interface AppUpdateSource {
  /** Whether a new version is ready to take. */
  readonly ready: boolean;
  /** Told when `ready` changes. */
  subscribe(listener: () => void): () => void;
  /** Looks for a new version now (cheap; the answer comes through `subscribe`). */
  check(): void;
  /** Takes it: the page reloads into the new version. */
  apply(): void;
}

/** How often an app open all day looks for a new version without any other reason to. */
const CHECK_EVERY_MS = 15 * 60_000;

/**
 * Looks for a new version when there is reason to (the app comes back into view, sync reconnects,
 * the server says this app is too old to sync, and every 15 minutes), and takes one that is ready
 * at a safe moment (safe-moment.ts: never in the middle of a form). Returns whether one is ready
 * and how to take it now, for the app to say so and offer the button.
 */
export function useAppUpdate(source: AppUpdateSource, client: PoolClient | null): { ready: boolean; apply(): void } {
  const [ready, setReady] = useState(source.ready);
  const [updateRequired, setUpdateRequired] = useState(false);
  useEffect(() => source.subscribe(() => setReady(source.ready)), [source]);
  useEffect(() => {
    const visible = () => document.visibilityState === 'visible' && source.check();
    document.addEventListener('visibilitychange', visible);
    const timer = setInterval(() => source.check(), CHECK_EVERY_MS);
    const state = client?.sync.status$
      .pipe(
        map((s) => s.state),
        distinctUntilChanged(),
      )
      .subscribe((s) => {
        setUpdateRequired(s === 'update-required');
        if (s === 'online' || s === 'update-required') source.check();
      });
    return () => {
      document.removeEventListener('visibilitychange', visible);
      clearInterval(timer);
      state?.unsubscribe();
    };
  }, [source, client]);
  useEffect(() => {
    if (!ready) return;
    const moment = takeAtSafeMoment(() => source.apply(), () => updateRequired);
    return () => moment.stop();
  }, [ready, updateRequired, source]);
  return { ready, apply: () => source.apply() };
}
