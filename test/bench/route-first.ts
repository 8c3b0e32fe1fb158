import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { issueToken } from '../../server/operations/auth.js';
import { provisionOrganization } from '../../server/operations/organization.js';
import { openStore } from '../../server/storage/open.js';
import { spawnBuiltServer, waitForOutput } from '../support/child.js';
import { signInCodeFor } from '../support/phones.js';
import { LAUNCH, median, PHONE, seedRoute } from './technician-app.js';
import { startThrottledLink } from './throttled-link.js';

/**
 * Today's route first (BENCH_ONLY=route): a technician's new phone signs in through the
 * office's link over a phone's link (20 Mbit/s, 50 ms round trips, the sync bench's throttled
 * proxy) and the built server on PGlite. The technician has 60 days of visits (17 a working day,
 * about 1,000) and 5,000 customers assigned to them, all of which the phone holds. Measured in
 * Chromium at 390x844, from the sign-in link's load: today's route usable (every stop on screen
 * with its customer's name) and the whole window on the phone (the SDK's `firstSyncDone`), each a
 * median of 3 fresh profiles.
 */
const CUSTOMERS = 5_000;
const RUNS = 3;

export async function benchRouteFirst(): Promise<void> {
  execFileSync('npm', ['run', '--silent', 'build:tech'], { stdio: 'inherit' });
  const folder = await mkdtemp(path.join(tmpdir(), 'bench-route-'));
  const dataDir = path.join(folder, 'data');
  const db = await openStore({ dataDir });
  const { organization, token: admin } = await provisionOrganization(db, { name: 'Route Pools' });
  const { apiToken } = await issueToken(db, organization.id, { name: 'Technician', role: 'TECHNICIAN' });
  const visits = await seedRoute(db, organization.id, apiToken.userId, CUSTOMERS);
  await db.close();
  const child = await spawnBuiltServer({ PORT: '0', DATA_DIR: dataDir, SEED_DEMO_ORG: 'false', LOG_LEVEL: 'warn' });
  const url = /listening on (http:\/\/\S+)/.exec(await waitForOutput(child, /listening on (http:\/\/\S+)/, 120_000))![1]!;
  const link = await startThrottledLink(url, { mbps: 20, rttMs: 50, compress: true });
  const routes: number[] = [];
  const windows: number[] = [];
  let stops = 0;
  let bytes = 0;
  try {
    // Each run a new phone: a fresh browser profile signing in with a new code of the technician's.
    for (let run = 0; run < RUNS; run++) {
      const before = link.bytesDown();
      const phone: BrowserContext = await chromium.launchPersistentContext(path.join(folder, `profile-${run}`), { ...LAUNCH, ...PHONE });
      try {
        const page = phone.pages()[0] ?? (await phone.newPage());
        // The office's one-time code for this new phone, as its QR code hands it over (made before the clock starts).
        const signIn = await signInCodeFor({ url: link.url }, admin, apiToken.userId);
        const start = performance.now();
        await page.goto(signIn.link);
        stops = await routeUsable(page);
        routes.push(performance.now() - start);
        await page.waitForFunction(() => !document.querySelector('[data-testid=history-arriving]') && document.querySelector('[data-testid=route-summary]'), null, { timeout: 300_000, polling: 50 });
        windows.push(performance.now() - start);
        bytes = link.bytesDown() - before;
      } finally {
        await phone.close();
      }
    }
    const runs = (values: number[]) => values.map((ms) => (ms / 1000).toFixed(2)).join(', ');
    console.log(`\nToday's route first on a new phone (Chromium 390x844, the technician app; server on PGlite behind a 20 Mbit/s link with 50 ms round trips; ${visits} visits over 60 days, ${CUSTOMERS.toLocaleString('en-US')} customers on the phone)`);
    console.log('| measure | target | result (median of 3) |');
    console.log('|---|---|---|');
    console.log(`| sign-in link loaded -> today's ${stops} stops on screen with their customers | 1 s | ${(median(routes) / 1000).toFixed(2)} s (runs ${runs(routes)}) |`);
    console.log(`| sign-in link loaded -> the whole window on the phone | | ${(median(windows) / 1000).toFixed(2)} s (runs ${runs(windows)}) |`);
    console.log(`| bytes down the link for one sign-in (app, scripts, sync) | | ${(bytes / 1024 / 1024).toFixed(1)} MB |`);
  } finally {
    await link.close();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('close', r));
    await rm(folder, { recursive: true, force: true });
  }
}

/** Today's route usable: its stops listed, each with its customer's name. Returns how many stops. */
async function routeUsable(page: Page): Promise<number> {
  await page.waitForFunction(
    () => {
      const stops = Array.from(document.querySelectorAll('.route a[data-visit-id] .who'));
      return stops.length > 0 && stops.every((s) => s.textContent && s.textContent !== 'Unknown customer');
    },
    null,
    { timeout: 300_000, polling: 20 },
  );
  return page.locator('.route a[data-visit-id]').count();
}
