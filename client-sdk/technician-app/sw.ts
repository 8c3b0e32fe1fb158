/// <reference lib="webworker" />
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';

/**
 * The technician app's service worker: Workbox precaches the app shell (the list is written in at
 * build time: server/build-technician-app.ts), so after one visit online the app starts with no
 * network at all, from the home screen too. Every navigation within /tech/ gets the page; the
 * API (GraphQL, sync, files) is never cached here: the SDK's replica is the app's offline data.
 *
 * A new build is a new worker, which installs and then waits: the running app may be in the
 * middle of a visit's form. The app takes it when it is safe (app-update.ts) by sending
 * SKIP_WAITING; the first install, with no app running under a worker yet, activates at once.
 */
declare const self: ServiceWorkerGlobalScope;
declare const PRECACHE: { url: string; revision: string | null }[];

self.addEventListener('message', (event) => {
  if ((event.data as { type?: unknown } | null)?.type === 'SKIP_WAITING') void self.skipWaiting();
});
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
cleanupOutdatedCaches();
precacheAndRoute(PRECACHE);
registerRoute(new NavigationRoute(createHandlerBoundToURL('/tech/')));
