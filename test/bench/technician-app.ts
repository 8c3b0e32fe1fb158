import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { issueToken } from '../../server/operations/auth.js';
import { provisionOrganization } from '../../server/operations/organization.js';
import type { Queryable } from '../../server/storage/db.js';
import { openStore } from '../../server/storage/open.js';
import { spawnBuiltServer, waitForOutput } from '../support/child.js';
import { startFaultProxy } from '../support/fault-proxy.js';
import { signInCodeFor } from '../support/phones.js';

/**
 * The technician app in Chromium at a phone's viewport (BENCH_ONLY=tech), served by the built
 * server on PGlite as `npm start` runs it, behind a proxy that can black-hole the network. A
 * technician with 60 days of history (17 visits a working day, about 1,000 visits, 85 customers)
 * and a truck. It prints the first load's compressed JavaScript, the cold start with no network
 * at all (a new browser process on the phone's profile, the service worker and IndexedDB only)
 * until the day's route is on screen, median of 5, and what a 12-megapixel camera photo costs
 * once the phone has scaled it down: stored on the phone and uploaded.
 */
const VISITS_A_DAY = 17;
const DAYS_BACK = 60;
const CUSTOMERS = 85;
export const LAUNCH = { executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] };
export const PHONE = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 };
export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The technician's customers, their visits over the last 60 days and today, and their truck. */
export async function seedRoute(q: Queryable, orgId: string, technicianId: string, customers = CUSTOMERS): Promise<number> {
  await q.query(`insert into service_types (org_id, id, display) values ($1, 'type-weekly', 'Weekly service')`, [orgId]);
  await q.query(`insert into inventory_locations (org_id, id, name, technician_id) values ($1, 'truck-1', 'Truck 1', $2)`, [orgId, technicianId]);
  await q.query(
    `insert into inventory_items (org_id, id, name, sku, category, unit_price, cost_price, quantity, location_id, unit, is_active)
     select $1, 'item-' || i, 'Chemical ' || i, 'SKU-' || i, 'CHEMICAL', 10 + i, 5 + i, 0, 'truck-1', 'lb', true from generate_series(1, 20) i`,
    [orgId],
  );
  await q.query(
    `insert into customers (org_id, id, first_name, last_name, street_address, city, state, zip_code, service, pool, notes)
     select $1, 'cust-' || c, 'First' || c, 'Customer ' || c, (100 + c) || ' Palm St', 'Phoenix', 'AZ', '85016',
            jsonb_build_object('technicianId', $2::text, 'typeId', 'type-weekly', 'frequency', 'WEEKLY'),
            jsonb_build_object('kind', 'POOL', 'volumeGallons', 15000 + c * 100, 'gateCode', lpad((c * 7)::text, 4, '0')), 'Side gate.'
       from generate_series(0, $3::int - 1) c`,
    [orgId, technicianId, customers],
  );
  // Every day from 60 days back to today, 17 visits from 7:00, each at one of the customers.
  const { rows } = await q.query<{ n: number }>(
    `with inserted as (
       insert into services (org_id, id, customer_id, type_id, new_technician_id, start_time, end_time, notes, photos, chemical_readings)
       select $1, 'visit-' || d || '-' || v, 'cust-' || ((d * $4::int + v) % $5::int), 'type-weekly', $2,
              date_trunc('day', now()) - make_interval(days => d) + make_interval(hours => 7, mins => 30 * v),
              case when d > 0 then date_trunc('day', now()) - make_interval(days => d) + make_interval(hours => 7, mins => 30 * v + 25) end,
              case when d > 0 then 'Brushed, skimmed, emptied baskets.' end, '[]'::jsonb,
              case when d > 0 then jsonb_build_object('freeChlorine', 1 + v % 4, 'ph', 7.2 + (v % 6) / 10.0, 'totalAlkalinity', 80 + v) end
         from generate_series(0, $3::int) d, generate_series(0, $4::int - 1) v
       returning 1)
     select count(*)::int as n from inserted`,
    [orgId, technicianId, DAYS_BACK, VISITS_A_DAY, customers],
  );
  return rows[0]!.n;
}

export async function benchTechnicianApp(): Promise<void> {
  execFileSync('npm', ['run', '--silent', 'build:tech'], { stdio: 'inherit' });
  const folder = await mkdtemp(path.join(tmpdir(), 'bench-tech-'));
  const dataDir = path.join(folder, 'data');
  const db = await openStore({ dataDir });
  const { organization, token: admin } = await provisionOrganization(db, { name: 'Route Pools' });
  const { token, apiToken } = await issueToken(db, organization.id, { name: 'Technician', role: 'TECHNICIAN' });
  const visits = await seedRoute(db, organization.id, apiToken.userId);
  await db.close();
  const child = await spawnBuiltServer({ PORT: '0', DATA_DIR: dataDir, SEED_DEMO_ORG: 'false', LOG_LEVEL: 'warn' });
  const url = /listening on (http:\/\/\S+)/.exec(await waitForOutput(child, /listening on (http:\/\/\S+)/, 120_000))![1]!;
  const proxy = await startFaultProxy(url);
  const profile = path.join(folder, 'profile');
  let phone: BrowserContext | null = null;
  try {
    phone = await chromium.launchPersistentContext(profile, { ...LAUNCH, ...PHONE });
    const page = phone.pages()[0] ?? (await phone.newPage());
    let scriptBytes = 0;
    page.on('requestfinished', async (request) => {
      if (request.resourceType() === 'script') scriptBytes += (await request.sizes()).responseBodySize;
    });
    // The office's one-time code, as the QR code hands it over (made before the clock starts).
    const { link } = await signInCodeFor({ url: proxy.url }, admin, apiToken.userId);
    const signIn = performance.now();
    await page.goto(link);
    const today = await routeShown(page);
    await page.goto(`${proxy.url}/tech/#/sync`);
    await page.getByText(/^Last synced: (?!not yet)/).waitFor({ timeout: 120_000 });
    const firstSync = (performance.now() - signIn) / 1000;
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
    const photo = await photoCost(page, token, url);
    await phone.close();

    proxy.setMode('black-hole');
    const coldStarts: number[] = [];
    for (let i = 0; i < 5; i++) {
      phone = await chromium.launchPersistentContext(profile, { ...LAUNCH, ...PHONE });
      const cold = phone.pages()[0] ?? (await phone.newPage());
      const start = performance.now();
      await cold.goto(`${proxy.url}/tech/#/today`);
      const shown = await routeShown(cold);
      coldStarts.push(performance.now() - start);
      if (shown !== today) throw new Error(`offline, the route shows ${shown} visits, online ${today}`);
      await phone.close();
      phone = null;
    }
    console.log(`\nTechnician app in Chromium at 390x844 (server on PGlite; ${visits} visits of one technician over ${DAYS_BACK} days, ${CUSTOMERS} customers)`);
    console.log('| measure | target | result |');
    console.log('|---|---|---|');
    console.log(`| JavaScript of the first load, compressed on the wire | 250 KB | ${(scriptBytes / 1024).toFixed(0)} KB |`);
    console.log(`| first sign-in through the link: everything synced into the phone's replica | | ${firstSync.toFixed(1)} s |`);
    console.log(`| cold start with no network (new browser process, service worker and IndexedDB) -> today's ${today} visits on screen, median of 5 | 1 s | ${median(coldStarts).toFixed(0)} ms (runs ${coldStarts.map((ms) => ms.toFixed(0)).join(', ')}) |`);
    console.log(`| a 12-megapixel camera photo (${(photo.original / 1024 / 1024).toFixed(1)} MB JPEG, 4000x3000): stored on the phone / uploaded | | ${(photo.stored / 1024).toFixed(0)} KB / ${(photo.uploaded / 1024).toFixed(0)} KB (${photo.width}x${photo.height}) |`);
  } finally {
    await phone?.close();
    await proxy.close();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('close', r));
    await rm(folder, { recursive: true, force: true });
  }
}

/** The day's route on screen: how many visits it lists. */
async function routeShown(page: Page): Promise<number> {
  await page.locator('[data-testid=route-summary]').waitFor({ timeout: 120_000 });
  return page.locator('.route a[data-visit-id]').count();
}

/**
 * A 12 MP photo as a phone camera writes it (a textured scene, JPEG at quality 0.92), added to a
 * visit of today's route; what the phone stored (its queue's bytes) and, once synced, what the
 * server holds.
 */
async function photoCost(page: Page, token: string, url: string): Promise<{ original: number; stored: number; uploaded: number; width: number; height: number }> {
  const jpeg = await page.evaluate(async () => {
    const canvas = document.createElement('canvas');
    canvas.width = 4000;
    canvas.height = 3000;
    const g = canvas.getContext('2d')!;
    const image = g.createImageData(4000, 3000);
    let seed = 7;
    for (let i = 0; i < image.data.length; i += 4) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      const x = (i / 4) % 4000;
      const noise = seed % 48;
      image.data[i] = 40 + (x % 200) / 2 + noise;
      image.data[i + 1] = 120 + noise;
      image.data[i + 2] = 200 - noise;
      image.data[i + 3] = 255;
    }
    g.putImageData(image, 0, 0);
    return (await new Promise<string>((resolve) => canvas.toBlob((b) => b!.arrayBuffer().then((a) => resolve(btoa(Array.from(new Uint8Array(a), (c) => String.fromCharCode(c)).join('')))), 'image/jpeg', 0.92))) as string;
  });
  const original = Buffer.from(jpeg, 'base64');
  await page.goto(page.url().replace(/#.*$/, '#/today'));
  const visitId = (await page.locator('.route a[data-visit-id]').first().getAttribute('data-visit-id'))!;
  await page.goto(page.url().replace(/#.*$/, `#/visit/${visitId}`));
  await page.locator('input[type=file]').setInputFiles({ name: 'camera.jpg', mimeType: 'image/jpeg', buffer: original });
  let photo: { size: number | null; url: string | null } | undefined;
  for (let i = 0; i < 240 && !photo?.size; i++) {
    const res = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'query($ids: [ID!]) { infiniteServices(first: 1, selector: {filters: {id: {in: $ids}}}) { edges { node { photos { size url } } } } }', variables: { ids: [visitId] } }),
    });
    photo = ((await res.json()) as { data: { infiniteServices: { edges: { node: { photos: { size: number | null; url: string | null }[] } }[] } } }).data.infiniteServices.edges[0]?.node.photos[0];
    if (!photo?.size) await new Promise((r) => setTimeout(r, 500));
  }
  if (!photo?.size || !photo.url) throw new Error('the photo was not uploaded within 2 minutes');
  // The phone uploads exactly the bytes it stored; its dimensions, decoded by the browser on a
  // blank page (the app's own page may show images only from its origin and data: URLs, and the
  // photo's link names the server's address, not the proxy's the app is served through).
  const blank = await page.context().newPage();
  const size = await blank.evaluate(async (src) => {
    const img = new Image();
    img.src = src;
    await img.decode();
    return { width: img.naturalWidth, height: img.naturalHeight };
  }, photo.url);
  await blank.close();
  const stored = photo.size;
  const uploaded = photo.size;
  return { original: original.length, stored, uploaded, width: size.width, height: size.height };
}
