import type { Service } from '../shared/index.js';
import { seededRandom } from '../shared/seeded-random.js';
import { issueToken } from './operations/auth.js';
import { createServiceType, createTax } from './operations/catalog.js';
import type { OperationContext } from './operations/context.js';
import { createCustomer, replaceQuotedPrices } from './operations/customers.js';
import { createInventoryItem, createLocation, transferInventory } from './operations/inventory.js';
import { updateOrganizationSettings } from './operations/organization.js';
import { createQuote, updateQuote } from './operations/quotes.js';
import { createService } from './operations/services.js';
import { billDemoLastMonth, type DemoBilling } from './demo-billing.js';

/**
 * Sample data for the demo organization, so the office app's board, customers, inventory and
 * quotes are not empty on a first start: three technicians, 36 customers with pools, six weeks of
 * visit history with readings, this week's schedule (weekdays, and a weekend route as pool
 * companies run one, so the board is not empty whatever day the server first starts), stock on
 * trucks, quotes, and last month billed (demo-billing.ts: paid, partly paid, overdue). Everything
 * goes through the same operations as the API (validated, change-fed), so devices sync it as any data. The values are made by a fixed-seed generator:
 * every first start looks the same.
 */
const TECHNICIANS = ['Maria Lopez', 'Dev Patel', 'Sam Carter'];
const FIRST = ['Ana', 'Ben', 'Carla', 'Derek', 'Elena', 'Frank', 'Grace', 'Hugo', 'Iris', 'Jon', 'Kira', 'Luis'];
const LAST = ['Smith', 'Nguyen', 'Garcia', 'Okafor', 'Miller', 'Rossi', 'Chen', 'Baker', 'Haddad', 'Kowalski', 'Silva', 'Turner'];
const STREETS = ['Palm Dr', 'Mesa Ave', 'Saguaro Ln', 'Camelback Rd', 'Ocotillo Way', 'Desert Sky Ct'];
const CITIES = [['Phoenix', '85016'], ['Scottsdale', '85251'], ['Tempe', '85281'], ['Mesa', '85201']] as const;
const TAGS = ['weekly', 'vip', 'gate-code', 'dog', 'commercial'];
const SLOTS = [8, 10, 12.5, 14.5]; // visit start hours (UTC) on each working day
/** The weekend's routes: Saturday one technician's full day, Sunday another's morning. */
const WEEKEND = [
  { day: 5, technician: 0, slots: SLOTS },
  { day: 6, technician: 1, slots: SLOTS.slice(0, 2) },
];

export interface DemoData {
  technicians: number;
  customers: number;
  visits: number;
  billing: DemoBilling;
}

export interface DemoOptions {
  /** The moment the data is made for (its week, what is done already); the clock by default. */
  now?: number;
}

export async function addDemoData(ctx: OperationContext, options: DemoOptions = {}): Promise<DemoData> {
  const now = options.now ?? Date.now();
  const random = seededRandom(20261123);
  const technicianIds = await addTechnicians(ctx);
  const types = await addServiceTypes(ctx);
  const tax = await createTax(ctx, { name: 'Arizona sales tax', rate: 8.6 });
  await updateOrganizationSettings(ctx, { defaultTaxId: tax.id, emailFromName: 'Demo Pool Service' });
  const customerIds = await addCustomers(ctx, random, technicianIds, types.weekly);
  const visits = await addVisits(ctx, random, now, { customerIds, technicianIds, types });
  await addStock(ctx, technicianIds);
  await addQuotes(ctx, customerIds, now);
  const billing = await billDemoLastMonth(ctx, now, customerIds[2]!);
  return { technicians: technicianIds.length, customers: customerIds.length, visits, billing };
}

/** Technicians are users; their tokens are not kept (the admin issues device tokens in Settings). */
async function addTechnicians(ctx: OperationContext): Promise<string[]> {
  const ids: string[] = [];
  for (const name of TECHNICIANS) {
    const { apiToken } = await ctx.db.transaction((tx) => issueToken(tx, ctx.viewer.orgId, { name, role: 'TECHNICIAN' }));
    ids.push(apiToken.userId);
  }
  return ids;
}

async function addServiceTypes(ctx: OperationContext) {
  const weekly = await createServiceType(ctx, { display: 'Weekly service', desc: 'Test and balance, skim, brush, empty baskets' });
  const filter = await createServiceType(ctx, { display: 'Filter clean', desc: 'Cartridge or DE filter teardown and clean' });
  const repair = await createServiceType(ctx, { display: 'Repair', desc: 'Pump, heater or plumbing repair' });
  return { weekly: weekly.id, filter: filter.id, repair: repair.id };
}

async function addCustomers(ctx: OperationContext, random: () => number, technicianIds: string[], weeklyTypeId: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < 36; i++) {
    const [city, zip] = CITIES[i % CITIES.length]!;
    const salt = random() < 0.4;
    const first = FIRST[i % FIRST.length]!;
    const last = LAST[(i * 5 + Math.floor(i / FIRST.length)) % LAST.length]!;
    const customer = await createCustomer(ctx, {
      firstName: first,
      lastName: last,
      streetAddress: `${100 + Math.floor(random() * 9800)} ${STREETS[i % STREETS.length]}`,
      city,
      state: 'AZ',
      zipCode: zip,
      phoneNumber: `(602) 555-${String(1000 + i * 37).slice(-4)}`,
      phoneNumberLabel: 'Mobile',
      phoneNumberEnableSMS: true,
      email: `${first.toLowerCase()}.${last.toLowerCase()}${i}@example.com`,
      status: 'ACTIVE',
      tags: TAGS.filter((_, t) => random() < (t === 0 ? 0.8 : 0.2)).concat(salt ? ['salt'] : []).filter((t, n, all) => all.indexOf(t) === n),
      customerSinceDate: `20${18 + (i % 7)}-0${1 + (i % 9)}-15`,
      pool: { kind: 'POOL', volumeGallons: 12000 + Math.round(random() * 16) * 1000, sanitizer: salt ? 'SALT' : 'CHLORINE', filterType: i % 2 ? 'CARTRIDGE' : 'SAND', gateCode: i % 3 ? null : `#${1000 + i}` },
      bodiesOfWater: [
        { id: `demo-pool-${i}`, name: 'Main pool', kind: 'POOL', volumeGallons: 15000, surface: 'PLASTER', sanitizer: salt ? 'SALT' : 'CHLORINE', notes: null },
        ...(i % 4 === 0 ? [{ id: `demo-spa-${i}`, name: 'Spa', kind: 'SPA', volumeGallons: 600, surface: 'PLASTER', sanitizer: 'CHLORINE', notes: null }] : []),
      ],
      service: { typeId: weeklyTypeId, technicianId: technicianIds[i % technicianIds.length], frequency: 'WEEKLY', dayOfWeek: 1 + (i % 5), rate: 135, startDate: null, notes: null },
    });
    await replaceQuotedPrices(ctx, customer.id, { quotedPrices: [{ typeId: weeklyTypeId, price: 125 + (i % 4) * 10 }] });
    ids.push(customer.id);
  }
  return ids;
}

interface VisitPlan {
  customerIds: string[];
  technicianIds: string[];
  types: { weekly: string; filter: string; repair: string };
}

/** Six weeks of history per customer (for the chemistry trends) and this week's schedule. */
async function addVisits(ctx: OperationContext, random: () => number, now: number, plan: VisitPlan): Promise<number> {
  const { customerIds, technicianIds, types } = plan;
  const monday = startOfWeek(new Date(now));
  let count = 0;
  for (const [index, customerId] of customerIds.entries()) {
    const technicianId = technicianIds[index % technicianIds.length]!;
    for (let week = 6; week >= 1; week--) {
      const start = new Date(monday.getTime() - week * WEEK + (index % 5) * DAY + hours(SLOTS[index % SLOTS.length]!));
      await createService(ctx, doneVisit(random, { customerId, technicianId, typeId: types.weekly, start }));
      count++;
    }
  }
  // This week: four visits a day per technician, Monday to Friday.
  for (let day = 0; day < 5; day++) {
    for (const [t, technicianId] of technicianIds.entries()) {
      for (const [slot, hour] of SLOTS.entries()) {
        const customerId = customerIds[(day * 7 + t * 4 + slot) % customerIds.length]!;
        const typeId = slot === 3 && day % 2 ? types.filter : types.weekly;
        await createService(ctx, scheduledVisit(random, now, { customerId, technicianId, typeId, start: new Date(monday.getTime() + day * DAY + hours(hour)) }));
        count++;
      }
    }
  }
  // The weekend: one technician's route on Saturday, fewer stops on Sunday, at their own customers.
  for (const { day, technician, slots } of WEEKEND) {
    const technicianId = technicianIds[technician]!;
    const theirs = customerIds.filter((_, index) => index % technicianIds.length === technician);
    for (const [slot, hour] of slots.entries()) {
      const customerId = theirs[(day + slot * 3) % theirs.length]!;
      await createService(ctx, scheduledVisit(random, now, { customerId, technicianId, typeId: types.weekly, start: new Date(monday.getTime() + day * DAY + hours(hour)) }));
      count++;
    }
  }
  return count;
}

/** A visit of this week: done when its hour is over, under way when the clock is inside it, else to do. */
function scheduledVisit(random: () => number, now: number, at: { customerId: string; technicianId: string; typeId: string; start: Date }): Partial<Service> {
  const start = at.start.getTime();
  if (start + hours(1) < now) return doneVisit(random, at);
  const visit: Partial<Service> = { customerId: at.customerId, newTechnicianId: at.technicianId, typeId: at.typeId, startTime: at.start.toISOString(), endTime: null, billingStatus: 'NOT_BILLED' };
  if (start <= now) visit.notes = 'On site';
  return visit;
}

function doneVisit(random: () => number, at: { customerId: string; technicianId: string; typeId: string; start: Date }): Partial<Service> {
  const odd = random() < 0.15; // now and then a pool is out of balance, as in life
  return {
    customerId: at.customerId,
    newTechnicianId: at.technicianId,
    typeId: at.typeId,
    startTime: at.start.toISOString(),
    endTime: new Date(at.start.getTime() + hours(0.75)).toISOString(),
    billingStatus: 'READY',
    vacuum: 'YES',
    waterLevel: 'NORMAL',
    waterCondition: odd ? 'CLOUDY' : 'CLEAR',
    notes: odd ? 'Water cloudy; shocked and will check again next visit.' : 'Brushed, skimmed, emptied baskets.',
    chemicalReadings: {
      freeChlorine: round1(odd ? 0.4 + random() : 1.5 + random() * 2.5),
      totalChlorine: null,
      ph: round1(odd ? 7.9 + random() * 0.3 : 7.2 + random() * 0.4),
      totalAlkalinity: Math.round(odd ? 125 + random() * 20 : 85 + random() * 30),
      calciumHardness: Math.round(220 + random() * 140),
      cyanuricAcid: Math.round(30 + random() * 40),
      salt: null,
      phosphates: null,
      tds: null,
      temperature: Math.round(68 + random() * 16),
      takenAt: at.start.toISOString(),
    },
  };
}

async function addStock(ctx: OperationContext, technicianIds: string[]): Promise<void> {
  const warehouse = await createLocation(ctx, { name: 'Warehouse', address: '2200 E University Dr, Phoenix' });
  const trucks = [];
  // Each technician's truck: their phone holds its stock.
  for (const [i, name] of TECHNICIANS.entries()) trucks.push(await createLocation(ctx, { name: `Truck (${name})`, address: null, technicianId: technicianIds[i] ?? null }));
  // Liquid chemicals are counted in fl oz (shared/chemistry/README.md advises it), so a suggested dose is booked in
  // whole units without rounding a quarter gallon away; 120 gallons of chlorine are 15,360 fl oz.
  const items = [
    { name: 'Liquid chlorine 12.5%', sku: 'CHL-125', category: 'CHEMICAL', unitPrice: 0.06, costPrice: 0.03, quantity: 15_360, reorderPoint: 5_120, unit: 'fl oz', truckLoad: 768 },
    { name: 'Muriatic acid 31%', sku: 'ACD-31', category: 'CHEMICAL', unitPrice: 0.1, costPrice: 0.06, quantity: 3_840, reorderPoint: 2_560, unit: 'fl oz', truckLoad: 768 },
    { name: 'Chlorine tablets 3"', sku: 'TAB-3', category: 'CHEMICAL', unitPrice: 89, costPrice: 61, quantity: 12, reorderPoint: 15, unit: 'bucket', truckLoad: 0 },
    { name: 'Stabilizer (cyanuric acid)', sku: 'CYA-4', category: 'CHEMICAL', unitPrice: 34, costPrice: 22, quantity: 18, reorderPoint: 6, unit: 'bag', truckLoad: 0 },
    { name: 'Filter cartridge 420 sq ft', sku: 'FLT-420', category: 'PARTS', unitPrice: 189, costPrice: 120, quantity: 8, reorderPoint: 4, unit: 'each', truckLoad: 0 },
    { name: 'Pump lid O-ring', sku: 'ORG-112', category: 'PARTS', unitPrice: 9.5, costPrice: 3, quantity: 40, reorderPoint: 10, unit: 'each', truckLoad: 0 },
    { name: 'Test strips (50)', sku: 'TST-50', category: 'SUPPLIES', unitPrice: 14, costPrice: 6, quantity: 3, reorderPoint: 5, unit: 'bottle', truckLoad: 0 },
  ];
  for (const { truckLoad, ...item } of items) {
    const created = await createInventoryItem(ctx, { ...item, locationId: warehouse.id });
    // Each truck carries some of the liquid chemicals (six gallons each).
    if (!truckLoad) continue;
    for (const truck of trucks) {
      await transferInventory(ctx, { itemId: created.id, fromLocationId: warehouse.id, toLocationId: truck.id, quantity: truckLoad });
    }
  }
}

async function addQuotes(ctx: OperationContext, customerIds: string[], now: number): Promise<void> {
  const lines = [
    { description: 'Variable-speed pump, 1.5 HP', quantity: 1, unitPrice: 1290 },
    { description: 'Installation labour (hours)', quantity: 3, unitPrice: 95 },
  ];
  await createQuote(ctx, { customerId: customerIds[0], title: 'Pump replacement', lineItems: lines, notes: 'Old pump is leaking at the seal.' });
  const sent = await createQuote(ctx, {
    customerId: customerIds[1],
    title: 'Green-to-clean recovery',
    lineItems: [{ description: 'Algae treatment and three follow-up visits', quantity: 1, unitPrice: 450 }],
    validUntil: new Date(now + 14 * DAY).toISOString(),
  });
  await updateQuote(ctx, sent.id, { status: 'SENT' });
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;
const hours = (h: number) => h * HOUR;
const round1 = (n: number) => Math.round(n * 10) / 10;

/** Monday 00:00 UTC of the week holding `date` (the demo organization's timezone is UTC). */
function startOfWeek(date: Date): Date {
  const midnight = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
  return new Date(midnight - ((date.getUTCDay() + 6) % 7) * DAY);
}
