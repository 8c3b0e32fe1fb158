import { DEFAULT_SCOPE_WINDOWS, scopeFor, scopeOf, type CollectionName } from '../../shared/index.js';
import { allNodes, canonical, pullAll } from './api.js';
import type { History } from './history.js';

/**
 * The checks after the network heals and every device says it is in sync. Each returns problems
 * in words; an empty list means the run converged.
 */
export interface DeviceView {
  name: string;
  token: string;
  userId: string;
  role: 'OFFICE' | 'TECHNICIAN';
  collections: string[];
  docs: Record<string, Record<string, any>[]>;
  status: { pendingPushes: number; pendingPhotoUploads: number };
}

interface Conflict {
  collection: string;
  documentId: string;
  field: string;
  keptValue: unknown;
  lostValue: unknown;
  pushedBy: string;
}

interface Quarantined {
  collection: string;
  documentId: string;
  document: unknown;
  reason: string;
}

type Docs = Map<string, Record<string, any>>;
const byId = (docs: Record<string, any>[]): Docs => new Map(docs.map((d) => [d.id as string, d]));
const strip = ({ _deleted, _meta, _rev, _attachments, ...doc }: Record<string, any>) => doc;

/** What a run left for the checks to look at, for the report. */
export interface Exercised {
  conflicts: number;
  quarantined: number;
  movements: number;
  /** Of the movements, doses and their corrections. */
  doses: number;
  photos: number;
  /** Payments taken at the door. */
  payments: number;
}

export async function checkInvariants(url: string, adminToken: string, history: History, devices: DeviceView[]): Promise<{ problems: string[]; exercised: Exercised }> {
  const problems: string[] = [];
  const server = new Map<string, Docs>();
  for (const c of ['customers', 'services', 'quotes', 'stockMovements', 'stockLevels', 'inventoryItems', 'invoices', 'payments']) server.set(c, byId(await pullAll(url, adminToken, c)));
  const quarantine = await allNodes<Quarantined>(url, adminToken, 'syncQuarantine', 'collection documentId document reason');
  const conflicts = await allNodes<Conflict>(url, adminToken, 'syncConflicts', 'collection documentId field keptValue lostValue pushedBy');

  problems.push(...checkCreated(history, server, quarantine));
  problems.push(...checkQuarantine(history, quarantine));
  problems.push(...checkConflicts(history, conflicts));
  problems.push(...checkStock(history, server));
  problems.push(...checkPhotos(history, server));
  problems.push(...checkPayments(history, server, quarantine));
  for (const device of devices) problems.push(...(await checkReplica(url, device)));
  problems.push(...(await checkScopes(url, adminToken, devices)));
  const exercised = {
    conflicts: conflicts.length,
    quarantined: quarantine.length,
    movements: history.movements.length,
    doses: history.movements.filter((m) => m.dose).length,
    photos: history.photos.length,
    payments: history.payments.length,
  };
  return { problems, exercised };
}

/** Every write a device accepted is on the server exactly once, unless it was invalid (quarantined) or deleted. */
function checkCreated(history: History, server: Map<string, Docs>, quarantine: Quarantined[]): string[] {
  const problems: string[] = [];
  const quarantined = new Set(quarantine.map((q) => `${q.collection}/${q.documentId}`));
  for (const c of history.created) {
    const key = `${c.collection}/${c.id}`;
    if (server.get(c.collection)?.has(c.id) || quarantined.has(key) || history.deleted.has(key)) continue;
    problems.push(`${key}, made by ${c.by}, never reached the server`);
  }
  return problems;
}

/** Quarantined documents are invalid ones (they name a customer someone deleted), each kept once. */
function checkQuarantine(history: History, quarantine: Quarantined[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const q of quarantine) {
    const key = `${q.collection}/${q.documentId}/${canonical(q.document)}`;
    if (seen.has(key)) problems.push(`quarantined twice: ${q.collection}/${q.documentId}`);
    seen.add(key);
    const customer = /Customer (\S+) was not found/.exec(q.reason)?.[1];
    if (!customer || !history.deletedCustomers.has(customer)) problems.push(`quarantined without reason: ${q.collection}/${q.documentId}: ${q.reason}`);
  }
  return problems;
}

/** A conflict-log entry only where two different writers changed the field. */
function checkConflicts(history: History, conflicts: Conflict[]): string[] {
  const problems: string[] = [];
  for (const c of conflicts) {
    const kept = history.writersOf(c.collection, c.documentId, c.field, c.keptValue);
    const lost = history.writersOf(c.collection, c.documentId, c.field, c.lostValue);
    const twoWriters = [...kept].some((k) => [...lost].some((l) => l !== k));
    if (!twoWriters) {
      problems.push(
        `conflict logged without two writers: ${c.collection}/${c.documentId}.${c.field} kept ${canonical(c.keptValue)} (by ${[...kept].join(',') || 'nobody'}) lost ${canonical(c.lostValue)} (by ${[...lost].join(',') || 'nobody'}), pushed by ${c.pushedBy}`,
      );
    }
  }
  return problems;
}

/** Levels are the sum of movements; items the sum of their levels; each movement applied once. */
function checkStock(history: History, server: Map<string, Docs>): string[] {
  const problems: string[] = [];
  const movements = server.get('stockMovements')!;
  for (const m of history.movements) {
    const stored = movements.get(m.id);
    if (!stored || stored.delta !== m.delta) problems.push(`movement ${m.id} (${m.delta}) stored as ${stored ? stored.delta : 'nothing'}`);
    // A dose arrives with what was suggested, as the device recorded it.
    else if (m.dose && canonical(stored.dose) !== canonical(m.dose)) problems.push(`dose ${m.id} stored as ${canonical(stored.dose)}, recorded as ${canonical(m.dose)}`);
  }
  const expected = new Map<string, number>();
  const add = (item: string, location: string, delta: number) => expected.set(`${item}/${location}`, (expected.get(`${item}/${location}`) ?? 0) + delta);
  for (const m of movements.values()) {
    add(m.itemId, m.locationId, m.delta);
    if (m.toLocationId) add(m.itemId, m.toLocationId, -m.delta);
  }
  const totals = new Map<string, number>();
  for (const level of server.get('stockLevels')!.values()) {
    const key = `${level.itemId}/${level.locationId}`;
    if ((expected.get(key) ?? 0) !== level.quantity) problems.push(`stock level ${key} is ${level.quantity}, movements say ${expected.get(key) ?? 0}`);
    totals.set(level.itemId, (totals.get(level.itemId) ?? 0) + level.quantity);
  }
  for (const item of server.get('inventoryItems')!.values()) {
    if ((totals.get(item.id) ?? 0) !== item.quantity) problems.push(`item ${item.id} quantity ${item.quantity}, levels say ${totals.get(item.id) ?? 0}`);
  }
  return problems;
}

/**
 * Every payment taken at the door is on the server once, with its amount (or quarantined, its
 * customer deleted), and applied once: a customer's invoices were all finalized before any payment,
 * so what they show paid is exactly the payments' sum up to what they total (the rest is credit).
 */
function checkPayments(history: History, server: Map<string, Docs>, quarantine: Quarantined[]): string[] {
  const problems: string[] = [];
  const stored = server.get('payments')!;
  const quarantined = new Set(quarantine.filter((q) => q.collection === 'payments').map((q) => q.documentId));
  for (const p of history.payments) {
    const payment = stored.get(p.id);
    if (!payment && !quarantined.has(p.id)) problems.push(`payment ${p.id} (${p.amount}) never reached the server`);
    else if (payment && (payment.amount !== p.amount || payment.customerId !== p.customerId)) problems.push(`payment ${p.id} stored as ${payment.amount} for ${payment.customerId}, taken as ${p.amount} for ${p.customerId}`);
  }
  const cents = (n: number) => Math.round(n * 100);
  const paid = new Map<string, number>();
  for (const p of stored.values()) paid.set(p.customerId, (paid.get(p.customerId) ?? 0) + cents(p.amount));
  const owed = new Map<string, { total: number; paid: number }>();
  for (const i of server.get('invoices')!.values()) {
    const sums = owed.get(i.customerId) ?? { total: 0, paid: 0 };
    owed.set(i.customerId, { total: sums.total + cents(i.total), paid: sums.paid + cents(i.amountPaid) });
    if (cents(i.balanceDue) !== cents(i.total) - cents(i.amountPaid)) problems.push(`invoice ${i.id}: balance ${i.balanceDue} is not ${i.total} - ${i.amountPaid}`);
  }
  for (const [customerId, sums] of owed) {
    const expected = Math.min(paid.get(customerId) ?? 0, sums.total);
    if (sums.paid !== expected) problems.push(`customer ${customerId}'s invoices show ${sums.paid / 100} paid; its payments (${(paid.get(customerId) ?? 0) / 100}) pay ${expected / 100} of ${sums.total / 100}`);
  }
  return problems;
}

/** Every photo of a visit that lives on the server arrived, bytes included. */
function checkPhotos(history: History, server: Map<string, Docs>): string[] {
  const problems: string[] = [];
  for (const p of history.photos) {
    const visit = server.get('services')!.get(p.visitId);
    if (!visit || visit._deleted) continue;
    const photo = (visit.photos ?? []).find((x: { id: string }) => x.id === p.photoId);
    if (!photo || photo.size == null) problems.push(`photo ${p.photoId} of visit ${p.visitId} ${photo ? 'has no bytes' : 'is missing'}`);
  }
  return problems;
}

/**
 * Each replica holds exactly the server's rows within its scope (a technician's own, or the
 * office's window), computed here from every row the server has by the declaration itself
 * (shared/sync/scopes.ts, with the default windows the simulation's server runs), not by what the
 * server's feeds say: none missing, none extra. "Every row" is what the ADMIN token pulls: the
 * office's scope, which holds every row of a seed (each was written within the run, so within
 * every window).
 */
async function checkScopes(url: string, adminToken: string, devices: DeviceView[]): Promise<string[]> {
  const problems: string[] = [];
  const collections = [...new Set(devices.flatMap((d) => d.collections))] as CollectionName[];
  const rows: Partial<Record<CollectionName, Record<string, any>[]>> = {};
  for (const c of collections) rows[c] = (await pullAll(url, adminToken, c)) as (Record<string, any> & { id: string })[];
  const live = (c: CollectionName) => new Set((rows[c] ?? []).filter((d) => !d._deleted).map((d) => d.id as string));
  for (const device of devices) {
    const held = scopeOf(device.role === 'TECHNICIAN' ? { technician: device.userId } : 'office', rows as never, DEFAULT_SCOPE_WINDOWS, Date.now());
    for (const c of device.collections as CollectionName[]) {
      const everything = live(c);
      const expected = scopeFor(device.role, c) ? new Set([...(held.get(c) ?? [])].filter((id) => everything.has(id))) : everything;
      const actual = new Set((device.docs[c] ?? []).map((d) => d.id as string));
      for (const id of expected) if (!actual.has(id)) problems.push(`${device.name} lacks ${c}/${id}, which is within its scope`);
      for (const id of actual) if (!expected.has(id)) problems.push(`${device.name} holds ${c}/${id}, which is outside its scope`);
    }
  }
  return problems;
}

/** The replica equals the server for what the device may see, and nothing waits. */
async function checkReplica(url: string, device: DeviceView): Promise<string[]> {
  const problems: string[] = [];
  if (device.status.pendingPushes || device.status.pendingPhotoUploads) problems.push(`${device.name} still has ${device.status.pendingPushes} changes and ${device.status.pendingPhotoUploads} photos pending`);
  for (const collection of device.collections) {
    const serverDocs = byId((await pullAll(url, device.token, collection)).filter((d) => !d._deleted));
    const local = byId(device.docs[collection] ?? []);
    for (const [id, doc] of serverDocs) {
      const mine = local.get(id);
      if (!mine) problems.push(`${device.name} misses ${collection}/${id}`);
      else if (canonical(strip(mine)) !== canonical(strip(doc))) problems.push(`${device.name} holds another ${collection}/${id}: ${canonical(strip(mine))} vs server ${canonical(strip(doc))}`);
    }
    for (const id of local.keys()) if (!serverDocs.has(id)) problems.push(`${device.name} holds ${collection}/${id}, which the server does not`);
  }
  return problems;
}
