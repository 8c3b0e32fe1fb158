import { withoutReplicaKeys } from '../../shared/index.js';
import type { PoolClient } from '../../client-sdk/index.js';
import { collectionByName } from '../../client-sdk/replica/database.js';
import { toItemUnits, waterBalance } from '../../shared/index.js';
import { sampleFiles } from '../fixtures/files.js';

/**
 * What a simulated person does on a device. The simulation draws the action and its random
 * numbers from the seed; the device resolves them against its own replica (documents sorted by
 * id, so the same numbers pick the same document), and reports what it wrote, for the checks.
 */
export type ActionKind =
  | 'recordVisit'
  | 'editVisit'
  | 'addPhoto'
  | 'useStock'
  | 'transferStock'
  // A dose the engine suggested, booked from the truck (sometimes corrected at once): ledger entries carrying their suggestion.
  | 'recordDose'
  // Cash or a check taken at the door: a payments ledger entry the server applies once.
  | 'takePayment'
  | 'createQuote'
  | 'editQuote'
  | 'deleteVisit'
  | 'officeEditVisit'
  | 'editCustomer'
  | 'deleteCustomer'
  // The office moving work between technicians (rows enter and leave their phones):
  | 'officeMoveVisit'
  | 'officeMoveCustomer'
  | 'officeMoveTruck'
  // The same kinds of change made the RxDB way, on client.db (they must sync like the actions'):
  | 'rxdbRecordVisit'
  | 'rxdbEditVisit'
  | 'rxdbEditCustomer'
  | 'rxdbDeleteVisit';

export interface ActionRequest {
  kind: ActionKind;
  /** Random numbers in [0, 1) from the seed. */
  r: number[];
  /** The device's user (a technician's truck is the location naming them). */
  me?: string;
  /** The technicians' user ids (the office moves work among them). */
  technicians?: string[];
  /** A label unique in the run, for values (so every written value names its writer). */
  label: string;
}

export interface Write {
  collection: string;
  id: string;
  fields: Record<string, unknown>;
}

export interface ActionResult {
  done: boolean;
  reason?: string;
  writes?: Write[];
  created?: { collection: string; id: string }[];
  deleted?: { collection: string; id: string }[];
  photo?: { visitId: string; photoId: string };
  movement?: Movement;
  /** More movements of the action (a dose's correction). */
  movements?: Movement[];
  /** A payment taken. */
  payment?: { id: string; customerId: string; amount: number };
}

type Movement = { id: string; itemId: string; locationId: string; toLocationId: string | null; delta: number; dose?: unknown };

type Doc = Record<string, any> & { id: string };

async function live(client: PoolClient, collection: string, where: (d: Doc) => boolean = () => true): Promise<Doc[]> {
  const docs = (await collectionByName(client.db, collection)!.find().exec()).map((d) => withoutReplicaKeys(collection, d.toJSON() as Doc));
  return docs.filter(where).sort((a, b) => (a.id < b.id ? -1 : 1));
}

const pick = <T>(list: T[], r: number): T | undefined => list[Math.floor(r * list.length)];
const skip = (reason: string): ActionResult => ({ done: false, reason });
const written = (collection: string, doc: Doc): Write => {
  const { _deleted, _meta, _rev, _attachments, ...fields } = doc;
  return { collection, id: doc.id, fields };
};

const WATER = ['LOW', 'NORMAL', 'HIGH'];
const BILLING = ['UNBILLED', 'BILLED', 'NO_CHARGE'];

export async function performAction(client: PoolClient, a: ActionRequest): Promise<ActionResult> {
  const [r0 = 0, r1 = 0, r2 = 0] = a.r;
  switch (a.kind) {
    case 'recordVisit': {
      const customer = pick(await live(client, 'customers'), r0);
      if (!customer) return skip('no customer');
      const visit = await client.recordVisit({ customerId: customer.id, notes: `${a.label} notes`, readings: { ph: 7 + Math.round(r1 * 10) / 10, freeChlorine: Math.round(r2 * 50) / 10 } });
      return { done: true, created: [{ collection: 'services', id: visit.id }], writes: [written('services', visit as Doc)] };
    }
    case 'editVisit': {
      const visit = pick(await live(client, 'services'), r0);
      if (!visit) return skip('no visit');
      const patch = r1 < 0.5 ? { notes: `${a.label} notes` } : { waterLevel: `${pick(WATER, r2)}-${a.label}` };
      await client.updateVisit(visit.id, patch);
      return { done: true, writes: [{ collection: 'services', id: visit.id, fields: patch }] };
    }
    case 'officeEditVisit': {
      const visit = pick(await live(client, 'services'), r0);
      if (!visit) return skip('no visit');
      const patch: Record<string, unknown> = r1 < 0.6 ? { billingStatus: `${pick(BILLING, r2)}-${a.label}` } : { notes: `${a.label} office notes` };
      await client.patch('services', visit.id, patch);
      return { done: true, writes: [{ collection: 'services', id: visit.id, fields: patch }] };
    }
    case 'addPhoto': {
      const visit = pick(await live(client, 'services'), r0);
      if (!visit) return skip('no visit');
      const photoId = await client.addVisitPhoto(visit.id, new Blob([new Uint8Array(sampleFiles.jpeg(600 + Math.floor(r1 * 400)))], { type: 'image/jpeg' }), a.label);
      return { done: true, photo: { visitId: visit.id, photoId } };
    }
    case 'useStock':
    case 'transferStock': {
      // The phone holds its truck (the location naming its technician) and the warehouse; the truck
      // may have moved to someone else meanwhile.
      const item = pick(await live(client, 'inventoryItems'), r0);
      const truck = (await live(client, 'inventoryLocations', (l) => l.technicianId === a.me))[0];
      const warehouse = (await live(client, 'inventoryLocations', (l) => l.technicianId == null))[0];
      if (!item || !truck || !warehouse) return skip('no item, truck or warehouse');
      const quantity = 1 + Math.floor(r1 * 3);
      const [from, to] = r2 < 0.5 ? [truck.id, warehouse.id] : [warehouse.id, truck.id];
      const movement =
        a.kind === 'useStock' ? await client.useStock(item.id, truck.id, quantity) : await client.transferStock(item.id, from, to, quantity);
      const { id, itemId, locationId, toLocationId, delta } = movement;
      return { done: true, created: [{ collection: 'stockMovements', id }], movement: { id, itemId, locationId, toLocationId: toLocationId ?? null, delta } };
    }
    case 'recordDose': {
      const visit = pick(await live(client, 'services'), r0);
      const item = pick(await live(client, 'inventoryItems'), r1);
      const truck = (await live(client, 'inventoryLocations', (l) => l.technicianId === a.me))[0];
      if (!visit || !item || !truck) return skip('no visit, item or truck');
      // The engine on the device, as the technician app runs it (pH from the seed, a 15,000-gallon pool).
      const balance = waterBalance({ readings: { ph: 7.9 + Math.round(r2 * 4) / 10, totalAlkalinity: 100 }, volumeGallons: 15_000 });
      const dose = balance.doses[0]!;
      const quantity = toItemUnits(dose.amount, dose.unit, item.unit ?? 'fl oz').quantity!;
      const suggestion = { reading: dose.reading, amount: dose.amount, unit: dose.unit, strengthPercent: dose.strengthPercent, formulaVersion: balance.formulaVersion };
      const booked = await client.recordDose({ visitId: visit.id, itemId: item.id, locationId: truck.id, quantity, chemical: dose.chemical, suggestion });
      const movements = [booked, ...(r2 < 0.3 ? [await client.correctDose(booked.id, quantity - 1)] : [])].map((m) => ({ id: m.id, itemId: m.itemId, locationId: m.locationId, toLocationId: null, delta: m.delta, dose: m.dose }));
      return { done: true, created: movements.map((m) => ({ collection: 'stockMovements', id: m.id })), movements };
    }
    case 'takePayment': {
      const customer = pick(await live(client, 'customers'), r0);
      if (!customer) return skip('no customer');
      const amount = (500 + Math.round(r1 * 14_500)) / 100;
      const method = r2 < 0.5 ? 'CASH' : 'CHECK';
      const taken = await client.takePayment({ customerId: customer.id, amount, method, reference: method === 'CHECK' ? a.label : null });
      return { done: true, created: [{ collection: 'payments', id: taken.id }], payment: { id: taken.id, customerId: customer.id, amount: taken.amount } };
    }
    case 'createQuote': {
      const customer = pick(await live(client, 'customers'), r0);
      if (!customer) return skip('no customer');
      const quote = await client.createQuote({ customerId: customer.id, title: `${a.label} quote`, lineItems: [{ description: 'Pump', quantity: 1 + Math.floor(r1 * 3), unitPrice: 120.5 }] });
      return { done: true, created: [{ collection: 'quotes', id: quote.id }], writes: [written('quotes', quote as unknown as Doc)] };
    }
    case 'editQuote': {
      const quote = pick(await live(client, 'quotes', (q) => q.status === 'DRAFT'), r0);
      if (!quote) return skip('no draft quote');
      const fields = { title: `${a.label} title` };
      await client.patch('quotes', quote.id, fields);
      return { done: true, writes: [{ collection: 'quotes', id: quote.id, fields }] };
    }
    case 'deleteVisit': {
      const visit = pick(await live(client, 'services'), r0);
      if (!visit) return skip('no visit');
      await client.remove('services', visit.id);
      return { done: true, deleted: [{ collection: 'services', id: visit.id }] };
    }
    case 'editCustomer': {
      const customer = pick(await live(client, 'customers'), r0);
      if (!customer) return skip('no customer');
      const fields: Record<string, unknown> = r1 < 0.5 ? { notes: `${a.label} customer notes` } : { tags: [...new Set([...(customer.tags ?? []), `tag-${Math.floor(r2 * 4)}`])] };
      await client.patch('customers', customer.id, fields);
      return { done: true, writes: [{ collection: 'customers', id: customer.id, fields }] };
    }
    case 'rxdbRecordVisit': {
      const customer = pick(await live(client, 'customers'), r0);
      if (!customer) return skip('no customer');
      const visit = { id: crypto.randomUUID(), customerId: customer.id, notes: `${a.label} rxdb notes`, photos: [], waterLevel: pick(WATER, r1)! };
      const doc = await client.db.collections.services!.insert(visit);
      return { done: true, created: [{ collection: 'services', id: visit.id }], writes: [written('services', withoutReplicaKeys('services', doc.toJSON() as Doc))] };
    }
    case 'rxdbEditVisit': {
      const visit = pick(await live(client, 'services'), r0);
      if (!visit) return skip('no visit');
      const patch = r1 < 0.5 ? { notes: `${a.label} rxdb notes` } : { waterLevel: `${pick(WATER, r2)}-${a.label}` };
      const doc = await client.db.collections.services!.findOne(visit.id).exec();
      if (!doc) return skip('no visit');
      await doc.incrementalPatch(patch);
      return { done: true, writes: [{ collection: 'services', id: visit.id, fields: patch }] };
    }
    case 'rxdbEditCustomer': {
      const customer = pick(await live(client, 'customers'), r0);
      const doc = customer && (await client.db.collections.customers!.findOne(customer.id).exec());
      if (!doc) return skip('no customer');
      const fields: Record<string, unknown> = { notes: `${a.label} rxdb customer notes` };
      await doc.incrementalModify((d) => ({ ...d, ...fields }));
      return { done: true, writes: [{ collection: 'customers', id: customer.id, fields }] };
    }
    case 'rxdbDeleteVisit': {
      const visit = pick(await live(client, 'services'), r0);
      const doc = visit && (await client.db.collections.services!.findOne(visit.id).exec());
      if (!doc) return skip('no visit');
      await doc.remove();
      return { done: true, deleted: [{ collection: 'services', id: visit.id }] };
    }
    case 'officeMoveVisit': {
      const visit = pick(await live(client, 'services'), r0);
      const to = pick(a.technicians ?? [], r1);
      if (!visit || !to) return skip('no visit');
      const fields = r2 < 0.8 ? { newTechnicianId: to } : { newSecondaryTechnicianId: r2 < 0.9 ? to : null };
      await client.patch('services', visit.id, fields);
      return { done: true, writes: [{ collection: 'services', id: visit.id, fields }] };
    }
    case 'officeMoveCustomer': {
      const customer = pick(await live(client, 'customers'), r0);
      if (!customer) return skip('no customer');
      const to = r1 < 0.85 ? (pick(a.technicians ?? [], r2) ?? null) : null;
      const fields = { service: { ...(customer.service ?? {}), technicianId: to } };
      await client.patch('customers', customer.id, fields);
      return { done: true, writes: [{ collection: 'customers', id: customer.id, fields }] };
    }
    case 'officeMoveTruck': {
      const truck = pick(await live(client, 'inventoryLocations', (l) => l.technicianId != null), r0);
      const to = pick(a.technicians ?? [], r1);
      if (!truck || !to) return skip('no truck');
      const fields = { technicianId: to };
      await client.patch('inventoryLocations', truck.id, fields);
      return { done: true, writes: [{ collection: 'inventoryLocations', id: truck.id, fields }] };
    }
    case 'deleteCustomer': {
      const customer = pick(await live(client, 'customers'), r0);
      if (!customer) return skip('no customer');
      await client.remove('customers', customer.id);
      return { done: true, deleted: [{ collection: 'customers', id: customer.id }] };
    }
  }
}
