/// <reference lib="webworker" />
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';

/**
 * The technician app's service worker: Workbox precaches the app shell (the list is written in at
 * build time: server/build-technician-app.ts), so after one visit online the app starts with no
 * network at all, from the home screen too. Every navigation within /tech/ gets the page; the
 * API (GraphQL, sync, files) is never cached here: the SDK's replica is the app's offline data.
 */
declare const self: ServiceWorkerGlobalScope;
declare const PRECACHE: { url: string; revision: string | null }[];

self.addEventListener('install', () => void self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
cleanupOutdatedCaches();
precacheAndRoute(PRECACHE);
registerRoute(new NavigationRoute(createHandlerBoundToURL('/tech/')));
