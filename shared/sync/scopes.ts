import type { CollectionName } from '../resources/index.js';
import type { Role } from '../resources/user.js';

/**
 * What a device holds, per role and collection: its scope. Declared once, here; the server turns
 * it into the SQL that keeps each technician's feed (server/storage/scope-sql.ts), and
 * `scopeOf` below evaluates it in memory on the same rows (a test holds the two together, and the
 * convergence simulation checks every replica against `scopeOf`).
 *
 * A row is in a technician's scope when any of its collection's reasons holds:
 * - `names`: the row names the technician (a field holding a user id; `object.field` reaches
 *   into a stored object, e.g. a customer's `service.technicianId`);
 * - `follows`: the row names a row of another collection that the technician holds
 *   (a quote follows its customer);
 * - `neededBy`: a live row of another collection that the technician holds names this row
 *   (a visit needs its customer);
 * - `unassigned`: the field names nobody, so the row is every technician's (a warehouse: any of
 *   them may take stock from it);
 * - `through`: the row names a row of another collection that names the technician (a stock
 *   movement at their truck: not one at a warehouse they merely hold).
 * and, where the collection has a window, its time (the first of the fields that is set) lies in
 * the last `windowDays` days or ahead. ADMIN, OFFICE and API devices hold everything.
 */
export type ScopeReason =
  | { readonly names: string }
  | { readonly follows: string; readonly collection: CollectionName }
  | { readonly neededBy: CollectionName; readonly field: string }
  | { readonly unassigned: string }
  | { readonly through: string; readonly collection: CollectionName; readonly naming: string };

export interface CollectionScope {
  /** 'everything': every device holds the whole collection. */
  readonly holds: 'everything' | readonly ScopeReason[];
  /** Only rows whose time lies in the window or ahead: the first non-null of these fields. */
  readonly window?: readonly string[];
  /** Why, in a sentence (the README's scope table). */
  readonly why: string;
}

export const TECHNICIAN_SCOPE: Readonly<Record<CollectionName, CollectionScope>> = {
  organization: { holds: 'everything', why: 'settings and names every screen shows' },
  serviceTypes: { holds: 'everything', why: 'a small catalog every visit names' },
  inventoryItems: { holds: 'everything', why: 'the catalog a technician picks chemicals and parts from' },
  services: {
    holds: [{ names: 'newTechnicianId' }, { names: 'newSecondaryTechnicianId' }, { names: 'createdById' }],
    window: ['startTime', 'createdAt'],
    why: 'visits they do (primary or secondary) or created, in the window and ahead',
  },
  customers: {
    holds: [{ neededBy: 'services', field: 'customerId' }, { names: 'service.technicianId' }, { names: 'createdById' }],
    why: 'the customers of those visits, the customers assigned to them, and those they signed up',
  },
  quotes: {
    holds: [{ names: 'createdById' }, { follows: 'customerId', collection: 'customers' }],
    why: 'quotes they created, and the quotes of the customers they hold',
  },
  appointments: { holds: [{ names: 'technicianId' }], why: 'appointments assigned to them' },
  inventoryLocations: {
    holds: [{ names: 'technicianId' }, { unassigned: 'technicianId' }],
    why: 'their truck (a location assigned to them) and the shared locations (a warehouse to take stock from), not other trucks',
  },
  stockLevels: { holds: [{ follows: 'locationId', collection: 'inventoryLocations' }], why: 'the stock on their truck and in the warehouses' },
  stockMovements: {
    holds: [
      { names: 'createdById' },
      { through: 'locationId', collection: 'inventoryLocations', naming: 'technicianId' },
      { through: 'toLocationId', collection: 'inventoryLocations', naming: 'technicianId' },
    ],
    window: ['createdAt'],
    why: 'movements they recorded, or into or out of their truck, in the window',
  },
};

/** The scope of a role's devices in a collection; null: the whole collection. */
export function scopeFor(role: Role, collection: string): CollectionScope | null {
  if (role !== 'TECHNICIAN' || !Object.hasOwn(TECHNICIAN_SCOPE, collection)) return null;
  const scope = TECHNICIAN_SCOPE[collection as CollectionName];
  return scope.holds === 'everything' ? null : scope;
}

/** The collections whose technician scope is not everything, each after those its reasons read. */
export const SCOPED_COLLECTIONS: readonly CollectionName[] = scopeOrder(TECHNICIAN_SCOPE);

/** The collection a reason reads, if any. */
export function readsFrom(reason: ScopeReason): CollectionName | null {
  if ('follows' in reason || 'through' in reason) return reason.collection;
  return 'neededBy' in reason ? reason.neededBy : null;
}

function scopeOrder(scopes: Readonly<Record<CollectionName, CollectionScope>>): CollectionName[] {
  const scoped = (Object.keys(scopes) as CollectionName[]).filter((c) => scopes[c].holds !== 'everything');
  const order: CollectionName[] = [];
  const visiting = new Set<CollectionName>();
  const visit = (c: CollectionName) => {
    if (order.includes(c)) return;
    if (visiting.has(c)) throw new Error(`The technician scope of ${c} depends on itself`);
    visiting.add(c);
    const holds = scopes[c].holds;
    for (const reason of holds === 'everything' ? [] : holds) {
      const upstream = readsFrom(reason);
      if (upstream && upstream !== c && scopes[upstream].holds !== 'everything') visit(upstream);
    }
    visiting.delete(c);
    order.push(c);
  };
  for (const c of scoped) visit(c);
  return order;
}

/** A field's value; `object.field` reaches into a stored object. */
export function valueAt(row: Readonly<Record<string, unknown>>, path: string): unknown {
  let value: unknown = row;
  for (const part of path.split('.')) value = value && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
  return value;
}

/** Whether a row's time (the first set field) lies within the last `days` days, or ahead. */
export function inWindow(row: Readonly<Record<string, unknown>>, fields: readonly string[], days: number, now: number): boolean {
  const time = fields.map((f) => row[f]).find((v) => v != null);
  return typeof time === 'string' && Date.parse(time) >= now - days * 86_400_000;
}

type Row = Readonly<Record<string, unknown>> & { readonly id: string; readonly _deleted?: boolean };

/**
 * The ids a technician's device holds in each scoped collection, given every row of the
 * organization (tombstones included: a deleted row stays held, so its deletion reaches the
 * device; only live rows hold others). The in-memory form of what the server keeps in SQL.
 */
export function scopeOf(userId: string, rows: Readonly<Partial<Record<CollectionName, readonly Row[]>>>, windowDays: number, now: number): Map<CollectionName, Set<string>> {
  const held = new Map<CollectionName, Set<string>>();
  for (const collection of SCOPED_COLLECTIONS) {
    const scope = TECHNICIAN_SCOPE[collection];
    const reasons = scope.holds === 'everything' ? [] : scope.holds;
    const needed = new Set<string>();
    for (const reason of reasons) {
      if (!('neededBy' in reason)) continue;
      const holders = held.get(reason.neededBy) ?? new Set();
      for (const row of rows[reason.neededBy] ?? []) {
        const named = row[reason.field];
        if (holders.has(row.id) && !row._deleted && typeof named === 'string') needed.add(named);
      }
    }
    const byId = (c: CollectionName) => new Map((rows[c] ?? []).map((r) => [r.id, r]));
    const throughRows = new Map(reasons.flatMap((r) => ('through' in r ? [[r.collection, byId(r.collection)] as const] : [])));
    const ids = new Set<string>();
    for (const row of rows[collection] ?? []) {
      if (scope.window && !inWindow(row, scope.window, windowDays, now)) continue;
      const holds = reasons.some((reason) => {
        if ('names' in reason) return valueAt(row, reason.names) === userId;
        if ('unassigned' in reason) return valueAt(row, reason.unassigned) == null;
        if ('through' in reason) {
          const other = throughRows.get(reason.collection)?.get(String(row[reason.through]));
          return other !== undefined && valueAt(other, reason.naming) === userId;
        }
        if ('follows' in reason) return held.get(reason.collection)?.has(String(row[reason.follows])) ?? false;
        return needed.has(row.id);
      });
      if (holds) ids.add(row.id);
    }
    held.set(collection, ids);
  }
  return held;
}
