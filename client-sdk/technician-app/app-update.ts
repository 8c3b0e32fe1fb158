import type { AppUpdateSource } from '../app-kit/app-update.js';

/**
 * The technician app's updates come through its service worker (sw.ts). A new build is a new
 * worker; it installs (precaching the new build beside the old) and then waits, while the running
 * app goes on with the old one. The app says "A new version is ready" and, at a safe moment
 * (app-kit/safe-moment.ts), asks the waiting worker to take over (`SKIP_WAITING`); once it
 * controls the page, the page reloads into the new build.
 */
export const SKIP_WAITING = 'SKIP_WAITING';

export function serviceWorkerUpdates(script: string, scope: string): AppUpdateSource {
  const listeners = new Set<() => void>();
  let waiting: ServiceWorker | null = null;
  let registration: ServiceWorkerRegistration | null = null;
  const supported = typeof navigator !== 'undefined' && 'serviceWorker' in navigator;

  function found(worker: ServiceWorker): void {
    // Without a controller this is the first install: it activates by itself, nothing to take.
    if (!navigator.serviceWorker.controller || waiting === worker) return;
    waiting = worker;
    for (const listener of listeners) listener();
  }

  function watch(reg: ServiceWorkerRegistration): void {
    registration = reg;
    if (reg.waiting) found(reg.waiting);
    reg.addEventListener('updatefound', () => {
      const installing = reg.installing;
      installing?.addEventListener('statechange', () => {
        if (installing.state === 'installed') found(installing);
      });
    });
  }

  if (supported) void navigator.serviceWorker.register(script, { scope }).then(watch, () => undefined);

  return {
    get ready() {
      return waiting !== null;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    check() {
      // Offline, or the server unreachable: the next reason to look will do.
      void registration?.update().catch(() => undefined);
    },
    apply() {
      if (!waiting) return;
      navigator.serviceWorker.addEventListener('controllerchange', () => location.reload(), { once: true });
      waiting.postMessage({ type: SKIP_WAITING });
    },
  };
}

/** The one worker of the app, registered as the app starts. */
export const appUpdates = serviceWorkerUpdates('/tech/sw.js', '/tech/');
