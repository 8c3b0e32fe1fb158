import { FAULT_MODES, startFaultProxy, type FaultMode, type FaultProxy } from '../support/fault-proxy.js';
import { graphql, provision } from './api.js';
import type { ActionKind, ActionResult } from './device-actions.js';
import type { DeviceProbe } from './device.js';
import type { DeviceHost } from './device-host.js';
import { History } from './history.js';
import { checkInvariants, type DeviceView, type Exercised } from './invariants.js';
import { seededRandom, weighted } from './random.js';
import type { SimServer } from './sim-server.js';

/**
 * One seeded run: an organization with technicians and an office, each on a device behind a
 * fault proxy; random actions while the proxies fail at random (and, if asked, the server is
 * killed or its database connections dropped mid-run); then the network heals, every device syncs,
 * and the invariants are checked. The seed fixes every decision; timing is the machine's.
 */
export interface SeedOptions {
  seed: number;
  server: SimServer;
  /** Device processes: the first is the office, the others technicians. */
  hosts: DeviceHost[];
  actions: number;
  faults: boolean;
  crashServer: boolean;
  dropDatabaseConnections: boolean;
  /** Restart the PostgreSQL cluster mid-run (script only: it would disturb other tests). */
  restartPostgres?: boolean;
}

export interface SeedReport {
  seed: number;
  problems: string[];
  actions: number;
  done: number;
  faults: number;
  /** Work the office moved between technicians (visits, customers, trucks), done. */
  moves?: number;
  /** Technicians who changed to a new phone mid-run (its first sync under the others' writes). */
  newPhones?: number;
  ms: number;
  /** From the heal until every device was in sync, left to itself; null if not within the limit. */
  recoveryMs?: number | null;
  exercised?: Exercised;
}

/** Every device in sync within this of the heal, or the seed fails. */
export const RECOVERY_LIMIT_MS = 45_000;

const TECH_COLLECTIONS = ['organization', 'customers', 'services', 'quotes', 'inventoryLocations', 'inventoryItems', 'stockLevels', 'stockMovements', 'invoices', 'payments'];
// Eleven: the most a client opens (RxDB's 13 per process, less the SDK's two); appointments, which no device writes here, stay out.
const OFFICE_COLLECTIONS = ['organization', 'serviceTypes', 'customers', 'services', 'quotes', 'inventoryLocations', 'inventoryItems', 'stockLevels', 'stockMovements', 'invoices', 'payments'];

const TECH_ACTIONS: Partial<Record<ActionKind, number>> = {
  recordVisit: 4,
  editVisit: 4,
  addPhoto: 2,
  useStock: 3,
  transferStock: 1,
  recordDose: 2,
  takePayment: 2,
  createQuote: 2,
  editQuote: 2,
  deleteVisit: 1,
  editCustomer: 1,
  rxdbRecordVisit: 1,
  rxdbEditVisit: 1,
  rxdbEditCustomer: 0.5,
  rxdbDeleteVisit: 0.3,
};
const OFFICE_ACTIONS: Partial<Record<ActionKind | 'sendQuote', number>> = {
  officeEditVisit: 4,
  editCustomer: 3,
  deleteCustomer: 0.4,
  recordVisit: 1,
  sendQuote: 1,
  rxdbEditCustomer: 0.5,
  officeMoveVisit: 2,
  officeMoveCustomer: 1,
  officeMoveTruck: 0.5,
};
/** A switch of the network's mode, or its open connections dying silently without one. */
type FaultEvent = FaultMode | 'lose-connections';
const FAULT_WEIGHTS: Record<FaultEvent, number> = { pass: 4, refuse: 2, 'cut-responses': 2, 'cut-uploads': 1, delay: 1, 'black-hole': 1, stall: 1, 'lose-connections': 1.5 };

interface Device {
  host: DeviceHost;
  proxy: FaultProxy;
  name: string;
  token: string;
  userId: string;
  collections: string[];
  role: 'OFFICE' | 'TECHNICIAN';
}

export async function runSeed(options: SeedOptions): Promise<SeedReport> {
  const started = Date.now();
  const random = seededRandom(options.seed);
  const { url } = options.server;
  const history = new History();
  const admin = await provision(url, `Simulation ${options.seed}`);
  const world = await setUpWorld(url, admin.token, options);
  await recordSetup(url, admin, history);
  const devices = world.devices;
  let faults = 0;
  let moves = 0;
  let newPhones = 0;
  try {
    await Promise.all(devices.map((d) => d.host.request({ op: 'sync', timeoutMs: 60_000 }, 70_000)));
    const crashAt = options.crashServer ? Math.floor(options.actions * (0.3 + random() * 0.4)) : -1;
    const dropAt = options.dropDatabaseConnections ? Math.floor(options.actions * (0.3 + random() * 0.4)) : -1;
    const restartAt = options.restartPostgres ? Math.floor(options.actions * (0.3 + random() * 0.4)) : -1;
    for (let i = 0; i < options.actions; i++) {
      if (options.faults && random() < 0.2) {
        const device = devices[Math.floor(random() * devices.length)]!;
        const fault = weighted(random, FAULT_WEIGHTS) as FaultEvent;
        if (fault === 'lose-connections') device.proxy.loseConnections();
        else device.proxy.setMode(fault);
        faults++;
      }
      if (i === crashAt) await options.server.crash();
      if (i === dropAt) await options.server.dropDatabaseConnections();
      if (i === restartAt) await options.server.restartPostgres();
      const index = Math.floor(random() * devices.length);
      const device = devices[index]!;
      if (random() < 0.04) {
        await device.host.request({ op: 'restart' });
        continue;
      }
      if (index > 0 && random() < 0.03) {
        if (await device.host.request<boolean>({ op: 'newPhone' })) newPhones++;
        continue;
      }
      const label = `s${options.seed}-a${i}-d${index}`;
      const r = [random(), random(), random()];
      if (index === 0) {
        const kind = weighted(random, OFFICE_ACTIONS as Record<string, number>);
        const technicians = devices.slice(1).map((d) => d.userId);
        if (kind === 'sendQuote') await sendQuote(url, device, history, r[0]!);
        else {
          const result = await device.host.request<ActionResult>({ op: 'act', action: { kind: kind as ActionKind, r, label, technicians } });
          if (result.done && kind.startsWith('officeMove')) moves++;
          history.record(result, device.userId);
        }
      } else {
        const kind = weighted(random, TECH_ACTIONS as Record<string, number>) as ActionKind;
        const action = { kind, r, label, me: device.userId };
        history.record(await device.host.request<ActionResult>({ op: 'act', action }), device.userId);
      }
      await new Promise((resolve) => setTimeout(resolve, random() * 40));
    }
    // The heal: new connections pass. Connections that died stay dead; nothing is reset, nothing
    // is asked of the devices: each must find its way back by itself.
    for (const d of devices) d.proxy.setMode('pass');
    const recoveryMs = await timeUntilAllInSync(url, devices, RECOVERY_LIMIT_MS);
    const views = await settle(devices);
    const { problems, exercised } = await checkInvariants(url, admin.token, history, views);
    if (recoveryMs === null) problems.push(`the devices were not all in sync within ${RECOVERY_LIMIT_MS / 1000} s of the heal`);
    return { seed: options.seed, problems, actions: history.actions, done: history.done, faults, moves, newPhones, ms: Date.now() - started, recoveryMs, exercised };
  } finally {
    await Promise.all(devices.map((d) => d.host.request({ op: 'close' }).catch(() => undefined)));
    await Promise.all(devices.map((d) => d.proxy.close()));
  }
}

/**
 * How long after now every device, left to itself, is in sync: nothing waiting to be pushed or
 * uploaded, and nothing on the server beyond any of its checkpoints (asked of the server with the
 * device's own token, so it sees what the device may see). Watched every 250 ms without waking
 * any device's sync; null if not within `limitMs`.
 */
async function timeUntilAllInSync(url: string, devices: Device[], limitMs: number): Promise<number | null> {
  const started = Date.now();
  while (Date.now() - started < limitMs) {
    const probes = await Promise.all(devices.map((d) => d.host.request<DeviceProbe>({ op: 'probe' })));
    if (probes.every((p) => p.pending === 0)) {
      const caughtUp = await Promise.all(devices.map((d, i) => nothingBeyond(url, d.token, probes[i]!.checkpoints)));
      if (caughtUp.every(Boolean)) return Date.now() - started;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return null;
}

async function nothingBeyond(url: string, token: string, checkpoints: Record<string, number>): Promise<boolean> {
  for (const [collection, seq] of Object.entries(checkpoints)) {
    const res = await fetch(`${url}/sync/${collection}/pull?checkpoint=${seq}&limit=1`, { headers: { authorization: `Bearer ${token}` } });
    if (!res.ok || ((await res.json()) as { documents: unknown[] }).documents.length) return false;
  }
  return true;
}

/** Every device in sync twice over: the second round pulls what the others pushed in the first. */
async function settle(devices: Device[]): Promise<DeviceView[]> {
  let statuses: DeviceView['status'][] = [];
  for (let round = 0; round < 2; round++) {
    statuses = await Promise.all(devices.map((d) => d.host.request<DeviceView['status']>({ op: 'sync', timeoutMs: 90_000 }, 100_000)));
  }
  const dumps = await Promise.all(devices.map((d) => d.host.request<Record<string, Record<string, unknown>[]>>({ op: 'dump' })));
  return devices.map((d, i) => ({ name: d.name, token: d.token, userId: d.userId, role: d.role, collections: d.collections, docs: dumps[i]!, status: statuses[i]! }));
}

/**
 * An organization with a warehouse, two items, and per technician a truck and customers of their
 * own (each phone holds only its technician's work: shared/sync/scopes.ts).
 */
async function setUpWorld(url: string, adminToken: string, options: SeedOptions): Promise<{ devices: Device[] }> {
  const q = (query: string, variables?: Record<string, unknown>) => graphql(url, adminToken, query, variables);
  const warehouseId = (await q(`mutation { createInventoryLocation(input: {name: "Warehouse"}) { id } }`)).createInventoryLocation.id as string;
  for (const name of ['Chlorine', 'Acid']) {
    await q(`mutation($l: ID) { createInventoryItem(input: {name: "${name}", category: CHEMICAL, unitPrice: 5, locationId: $l, quantity: 200}) { id } }`, { l: warehouseId });
  }
  const users = [];
  for (const index of options.hosts.keys()) {
    const role = index === 0 ? 'OFFICE' : 'TECHNICIAN';
    const created = (await q(`mutation($i: CreateApiTokenInput!) { createApiToken(input: $i) { token apiToken { userId } } }`, { i: { name: `device ${index}`, role } })).createApiToken;
    users.push({ role: role as Device['role'], token: created.token as string, userId: created.apiToken.userId as string });
  }
  const technicians = users.filter((u) => u.role === 'TECHNICIAN');
  for (const [i, tech] of technicians.entries()) {
    await q(`mutation($t: ID) { createInventoryLocation(input: {name: "Truck ${i + 1}", technicianId: $t}) { id } }`, { t: tech.userId });
  }
  // Two customers per technician, and one of nobody's (the office's alone until someone visits it),
  // each owing two invoices (finalized: OPEN) that payments taken at the door pay off, oldest first.
  for (let i = 0; i <= technicians.length * 2; i++) {
    const technicianId = technicians[i % (technicians.length + 1)]?.userId ?? null;
    const customerId = (await q(`mutation($t: ID) { createCustomer(input: {firstName: "Sim", lastName: "Customer ${i}", service: {technicianId: $t}}) { id } }`, { t: technicianId })).createCustomer.id as string;
    for (const [periodStart, periodEnd, price] of [['2026-09-01', '2026-09-30', 60 + i], ['2026-10-01', '2026-10-31', 75.5 + i]] as const) {
      const draft = (await q(`mutation($i: CreateInvoiceInput!) { createInvoice(input: $i) { id } }`, { i: { customerId, periodStart, periodEnd, lines: [{ description: 'Pool service', quantity: 1, unitPrice: price, taxId: null }] } })).createInvoice.id;
      await q(`mutation($id: ID!) { finalizeInvoice(id: $id) { id } }`, { id: draft });
    }
  }
  const devices: Device[] = [];
  for (const [index, host] of options.hosts.entries()) {
    const { role, token, userId } = users[index]!;
    const proxy = await startFaultProxy(url, { delayMs: 120 });
    const collections = role === 'OFFICE' ? OFFICE_COLLECTIONS : TECH_COLLECTIONS;
    const name = `seed-${options.seed}-device-${index}`;
    // The SDK's own deadlines and retry times, as a phone runs them.
    await host.request({ op: 'open', config: { baseUrl: proxy.url, token, name, collections } });
    devices.push({ host, proxy, name, token, userId, collections, role });
  }
  return { devices };
}

/** What existed before the run counts as written by the admin who set it up. */
async function recordSetup(url: string, admin: { token: string; userId: string }, history: History): Promise<void> {
  const { pullAll } = await import('./api.js');
  for (const collection of ['customers', 'services', 'quotes']) {
    for (const { _deleted, ...doc } of await pullAll(url, admin.token, collection)) history.wrote(collection, doc.id as string, doc, admin.userId);
  }
}

/** The office sends a quote (a status change only the server's state machine makes). */
async function sendQuote(url: string, office: Device, history: History, r: number): Promise<void> {
  history.actions++;
  const quotes = history.created.filter((c) => c.collection === 'quotes');
  const quote = quotes[Math.floor(r * quotes.length)];
  if (!quote) return;
  try {
    await graphql(url, office.token, `mutation($id: ID!) { updateQuote(id: $id, input: {status: SENT}) { id } }`, { id: quote.id });
    history.done++;
    history.wrote('quotes', quote.id, { status: 'SENT' }, office.userId);
  } catch {
    // not on the server yet, or not a draft any more: nothing changed
  }
}

export { FAULT_MODES };
