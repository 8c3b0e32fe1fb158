import type { AppUpdateSource } from '../app-kit/app-update.js';

/**
 * The office app has no service worker: it stays open in a tab all day, and a new build on the
 * server is noticed by asking which build the server serves (`GET /app/build`, the hashed name of
 * its script) and comparing it with the script this page runs. A different one is ready; taking it
 * is a reload, at a safe moment (app-kit/safe-moment.ts), which loads the page the server serves now.
 */
export function serverBuildUpdates(origin: string, running: string | null): AppUpdateSource {
  const listeners = new Set<() => void>();
  let ready = false;
  let asking = false;
  return {
    get ready() {
      return ready;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    check() {
      if (ready || asking || !running) return;
      asking = true;
      void fetch(`${origin}/app/build`, { cache: 'no-store', signal: AbortSignal.timeout(10_000) })
        .then((res) => (res.ok ? (res.json() as Promise<{ build?: unknown }>) : null))
        .then((answer) => {
          if (typeof answer?.build !== 'string' || answer.build === running) return;
          ready = true;
          for (const listener of listeners) listener();
        })
        // Offline, or the server unreachable: the next reason to look will do.
        .catch(() => undefined)
        .finally(() => {
          asking = false;
        });
    },
    apply: () => location.reload(),
  };
}

/** The build this page runs: its module script's file name (null when not served as a build). */
function runningBuild(): string | null {
  if (typeof document === 'undefined') return null;
  const script = document.querySelector<HTMLScriptElement>('script[type="module"][src*="/app/assets/"]');
  return script ? script.src.slice(script.src.lastIndexOf('/') + 1) : null;
}

export const appUpdates = serverBuildUpdates(typeof location === 'undefined' ? '' : location.origin, runningBuild());
