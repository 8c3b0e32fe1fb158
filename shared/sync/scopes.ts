import type { CollectionName } from '../resources/index.js';
import type { Role } from '../resources/user.js';

/**
 * What a device holds, per role and collection: its scope. Declared once, here; the server turns
 * it into the SQL that keeps each device's feed (server/storage/scope-sql.ts), and `scopeOf`
 * below evaluates it in memory on the same rows (a test holds the two together, and the
 * convergence simulation checks every replica against `scopeOf`).
 *
 * Two scopes: a technician's (a feed per technician: their own work), and the office's (one feed
 * the organization's ADMIN, OFFICE and API devices share: a window of the company's work, not its
 * history, which those screens read through GraphQL).
 *
 * A row is in a scope when any of its collection's reasons holds:
 * - `names`: the row names the technician (a field holding a user id; `object.field` reaches
 *   into a stored object, e.g. a customer's `service.technicianId`);
 * - `follows`: the row names a row of another collection that the device holds
 *   (a quote follows its customer);
 * - `neededBy`: a live row of another collection that the device holds names this row
 *   (a visit needs its customer);
 * - `unassigned`: the field names nobody, so the row is every technician's (a warehouse: any of
 *   them may take stock from it);
 * - `through`: the row names a row of another collection that names the technician (a stock
 *   movement at their truck: not one at a warehouse they merely hold);
 * - `all`: every row (the office's visits: the window decides);
 * - `recent`: the row's own time (a field) lies within the scope's window (a customer the office
 *   changed last week, whatever their visits);
 * - `matches`: a field holds one of the values (a quote still open);
 * and, where the collection has a window, its time (the first of the fields that is set) lies in
 * the last `windowDays` days of the scope's window or ahead, and, where it has an `only`
 * condition, the row meets it. Rows are checked when they are written
 * or move, and again as they age (server/jobs/scope-ageing.ts): a row whose time has left every
 * reason's window leaves the device.
 */
export type ScopeReason =
  | { readonly names: string }
  | { readonly follows: string; readonly collection: CollectionName }
  | { readonly neededBy: CollectionName; readonly field: string }
  | { readonly unassigned: string }
  | { readonly through: string; readonly collection: CollectionName; readonly naming: string }
  | { readonly all: true }
  | { readonly recent: string }
  | { readonly matches: string; readonly values: readonly string[] };

/** A condition every held row meets, whatever its reason: a field holding one of the values. */
export interface ScopeCondition {
  readonly field: string;
  readonly values: readonly string[];
}

export interface CollectionScope {
  /** 'everything': every device holds the whole collection. */
  readonly holds: 'everything' | readonly ScopeReason[];
  /** Only rows whose time lies in the window or ahead: the first non-null of these fields. */
  readonly window?: readonly string[];
  /**
   * Only rows meeting this, whatever the reason (a technician's invoices: those of customers it
   * holds, and only while OPEN). A row that stops meeting it leaves, as a departure.
   */
  readonly only?: ScopeCondition;
  /** Why, in a sentence (shared/sync/README.md's scope table). */
  readonly why: string;
}

export type ScopeName = 'TECHNICIAN' | 'OFFICE';

/** Days back of each scope's windows (SYNC_SERVICE_WINDOW_DAYS, SYNC_OFFICE_WINDOW_DAYS). */
export type ScopeWindows = Readonly<Record<ScopeName, number>>;
export const DEFAULT_SCOPE_WINDOWS: ScopeWindows = { TECHNICIAN: 60, OFFICE: 14 };

/** The audience of the office's one shared feed (a technician's audience is their user id). */
export const OFFICE_AUDIENCE = '@office';

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
  invoices: {
    holds: [{ follows: 'customerId', collection: 'customers' }],
    only: { field: 'status', values: ['OPEN'] },
    why: "the open invoices of the customers they hold (what is owed at the door); a paid or voided one leaves",
  },
  payments: {
    holds: [{ names: 'createdById' }, { follows: 'customerId', collection: 'customers' }],
    window: ['createdAt'],
    why: 'payments they took, and those of the customers they hold, in the window',
  },
};

export const OFFICE_SCOPE: Readonly<Record<CollectionName, CollectionScope>> = {
  organization: { holds: 'everything', why: 'settings and names every screen shows' },
  serviceTypes: { holds: 'everything', why: 'a small catalog every visit names' },
  inventoryItems: { holds: 'everything', why: 'the catalog, with its stock totals' },
  inventoryLocations: { holds: 'everything', why: 'the warehouse and every truck' },
  stockLevels: { holds: 'everything', why: 'the stock at every location (the inventory screen)' },
  appointments: { holds: 'everything', why: 'the recurring schedule the board plans from' },
  services: {
    holds: [{ all: true }],
    window: ['startTime', 'createdAt'],
    why: 'every visit from the window on (the board), and everything ahead',
  },
  quotes: {
    holds: [{ matches: 'status', values: ['DRAFT', 'SENT'] }, { recent: 'updatedAt' }],
    why: 'quotes still open (draft or sent), and quotes changed in the window',
  },
  customers: {
    holds: [{ neededBy: 'services', field: 'customerId' }, { neededBy: 'quotes', field: 'customerId' }, { recent: 'updatedAt' }],
    why: 'the customers of those visits and quotes, and customers changed in the window (new ones too)',
  },
  stockMovements: { holds: [{ all: true }], window: ['createdAt'], why: 'movements in the window (older history through GraphQL)' },
  // Drafts stay on the server (the Billing screen reads them through GraphQL): a draft may be deleted for good, which no feed could tell.
  invoices: {
    holds: [{ matches: 'status', values: ['OPEN'] }, { recent: 'updatedAt' }],
    only: { field: 'status', values: ['OPEN', 'PAID', 'VOID'] },
    why: 'open invoices, and invoices paid or voided in the window (drafts through GraphQL)',
  },
  payments: { holds: [{ all: true }], window: ['createdAt'], why: 'payments recorded in the window (older history through GraphQL)' },
};

/** Each scope: whose feed it is and what it holds. */
export const SCOPES: Readonly<Record<ScopeName, Readonly<Record<CollectionName, CollectionScope>>>> = { TECHNICIAN: TECHNICIAN_SCOPE, OFFICE: OFFICE_SCOPE };

/** The scope of a role's devices: a technician's own, or the office's. */
export function scopeNameOf(role: Role): ScopeName {
  return role === 'TECHNICIAN' ? 'TECHNICIAN' : 'OFFICE';
}

/** The scope of a role's devices in a collection; null: the whole collection. */
export function scopeFor(role: Role, collection: string): CollectionScope | null {
  const scopes = SCOPES[scopeNameOf(role)];
  if (!Object.hasOwn(scopes, collection)) return null;
  const scope = scopes[collection as CollectionName];
  return scope.holds === 'everything' ? null : scope;
}

/** Whose feed a device reads for a collection: its user's (a technician), the office's, or none (the whole table). */
export function audienceOf(viewer: { role: Role; userId: string }, collection: string): string | null {
  if (!scopeFor(viewer.role, collection)) return null;
  return viewer.role === 'TECHNICIAN' ? viewer.userId : OFFICE_AUDIENCE;
}

/** The reasons of a collection in a scope (none where it holds everything). */
export function reasonsIn(scope: ScopeName, collection: CollectionName): readonly ScopeReason[] {
  const holds = SCOPES[scope][collection].holds;
  return holds === 'everything' ? [] : holds;
}

/** The scopes that hold less than the whole collection. */
export function scopesOf(collection: CollectionName): ScopeName[] {
  return (Object.keys(SCOPES) as ScopeName[]).filter((name) => SCOPES[name][collection].holds !== 'everything');
}

/** The collections a scope holds less than whole of, each after those its reasons read. */
export function scopedCollections(scope: ScopeName): readonly CollectionName[] {
  return SCOPE_ORDER[scope];
}

/** The collections any scope holds less than whole of (each has entries in `scope_rows`). */
export const SCOPED_COLLECTIONS: readonly CollectionName[] = (Object.keys(TECHNICIAN_SCOPE) as CollectionName[]).filter((c) => scopesOf(c).length > 0);

/** The collection a reason reads, if any. */
export function readsFrom(reason: ScopeReason): CollectionName | null {
  if ('follows' in reason || 'through' in reason) return reason.collection;
  return 'neededBy' in reason ? reason.neededBy : null;
}

/** A scope's collections in dependency order: each after those its reasons read (each scope's graph has no cycle). */
function scopeOrder(scope: ScopeName): CollectionName[] {
  const scoped = (Object.keys(SCOPES[scope]) as CollectionName[]).filter((c) => SCOPES[scope][c].holds !== 'everything');
  const order: CollectionName[] = [];
  const visiting = new Set<CollectionName>();
  const visit = (c: CollectionName) => {
    if (order.includes(c)) return;
    if (visiting.has(c)) throw new Error(`The ${scope} scope of ${c} depends on itself`);
    visiting.add(c);
    for (const reason of reasonsIn(scope, c)) {
      const upstream = readsFrom(reason);
      if (upstream && upstream !== c && scoped.includes(upstream)) visit(upstream);
    }
    visiting.delete(c);
    order.push(c);
  };
  for (const c of scoped) visit(c);
  return order;
}

const SCOPE_ORDER: Readonly<Record<ScopeName, readonly CollectionName[]>> = { TECHNICIAN: scopeOrder('TECHNICIAN'), OFFICE: scopeOrder('OFFICE') };

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

/** Whether a row meets a scope's condition. */
export function meets(row: Readonly<Record<string, unknown>>, condition: ScopeCondition): boolean {
  return condition.values.includes(String(valueAt(row, condition.field)));
}

type Row = Readonly<Record<string, unknown>> & { readonly id: string; readonly _deleted?: boolean };

/** A device's holder: a technician (their user id), or the office. */
export type ScopeHolder = { readonly technician: string } | 'office';

/**
 * The ids a device holds in each collection its scope narrows, given every row of the organization
 * (tombstones included: a deleted row stays held, so its deletion reaches the device; only live
 * rows hold others). The in-memory form of what the server keeps in SQL.
 */
export function scopeOf(
  holder: ScopeHolder,
  rows: Readonly<Partial<Record<CollectionName, readonly Row[]>>>,
  windows: ScopeWindows,
  now: number,
): Map<CollectionName, Set<string>> {
  const scopeName: ScopeName = holder === 'office' ? 'OFFICE' : 'TECHNICIAN';
  const userId = holder === 'office' ? null : holder.technician;
  const days = windows[scopeName];
  const held = new Map<CollectionName, Set<string>>();
  for (const collection of scopedCollections(scopeName)) {
    const scope = SCOPES[scopeName][collection];
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
      if (scope.window && !inWindow(row, scope.window, days, now)) continue;
      if (scope.only && !meets(row, scope.only)) continue;
      const holds = reasons.some((reason) => {
        if ('names' in reason) return userId !== null && valueAt(row, reason.names) === userId;
        if ('unassigned' in reason) return valueAt(row, reason.unassigned) == null;
        if ('through' in reason) {
          const other = throughRows.get(reason.collection)?.get(String(row[reason.through]));
          return userId !== null && other !== undefined && valueAt(other, reason.naming) === userId;
        }
        if ('follows' in reason) return held.get(reason.collection)?.has(String(row[reason.follows])) ?? false;
        if ('all' in reason) return true;
        if ('recent' in reason) return inWindow(row, [reason.recent], days, now);
        if ('matches' in reason) return reason.values.includes(String(valueAt(row, reason.matches)));
        return needed.has(row.id);
      });
      if (holds) ids.add(row.id);
    }
    held.set(collection, ids);
  }
  return held;
}
