import type { Role } from '../resources/user.js';

/**
 * The sync rules of every replicated collection, once, for both ends: what kind of collection it
 * is, which roles' pushes the server applies, and which records its documents name. The server
 * enforces them (operations/sync); the SDK reads them to refuse locally what the server would
 * refuse (a device never writes a read-only collection, never changes a ledger entry). What each
 * role's devices hold is scopes.ts.
 *
 * - documents: any writer role changes them; merged field by field on the server;
 * - readonly: the server's alone to write (its derived data, or the office's);
 * - ledger: insert-only; each entry applied exactly once (stock movements, payments).
 */
export type CollectionKind = 'documents' | 'readonly' | 'ledger';

export interface SyncReference {
  field: string;
  /** The collection whose live record of the same organization the field names. */
  collection: string;
  /** How an error names the record, e.g. "Customer". */
  what: string;
}

export interface SyncRule {
  kind: CollectionKind;
  /** Roles whose pushes are applied; others are answered with the server state. */
  writers: readonly Role[];
  /** Checked on a new document and whenever a change names another record. */
  references: readonly SyncReference[];
}

export const OFFICE_ROLES: readonly Role[] = ['ADMIN', 'OFFICE', 'API'];
const EVERYONE: readonly Role[] = ['ADMIN', 'OFFICE', 'API', 'TECHNICIAN'];
const CUSTOMER: SyncReference = { field: 'customerId', collection: 'customers', what: 'Customer' };
const SERVICE_TYPE: SyncReference = { field: 'typeId', collection: 'serviceTypes', what: 'Service type' };

export const SYNC_RULES: Readonly<Record<string, SyncRule>> = {
  organization: { kind: 'readonly', writers: [], references: [] },
  serviceTypes: { kind: 'readonly', writers: [], references: [] },
  customers: { kind: 'documents', writers: EVERYONE, references: [] },
  appointments: { kind: 'documents', writers: OFFICE_ROLES, references: [CUSTOMER, SERVICE_TYPE] },
  services: { kind: 'documents', writers: EVERYONE, references: [CUSTOMER, SERVICE_TYPE] },
  quotes: { kind: 'documents', writers: EVERYONE, references: [CUSTOMER] },
  inventoryLocations: { kind: 'documents', writers: OFFICE_ROLES, references: [] },
  inventoryItems: { kind: 'documents', writers: OFFICE_ROLES, references: [] },
  stockLevels: { kind: 'readonly', writers: [], references: [] },
  stockMovements: { kind: 'ledger', writers: EVERYONE, references: [] },
  // Invoices are the office's (made, finalized and paid on the server): devices read their balances.
  invoices: { kind: 'readonly', writers: [], references: [] },
  // A payment taken at the door: a technician only for a customer its device holds (the server checks).
  payments: { kind: 'ledger', writers: EVERYONE, references: [CUSTOMER] },
};

/** The rule of a replicated collection, or undefined for any other name. */
export function syncRule(collection: string): SyncRule | undefined {
  return Object.hasOwn(SYNC_RULES, collection) ? SYNC_RULES[collection] : undefined;
}

export type DeviceWrite = 'insert' | 'change' | 'delete';

/**
 * Whether a device may make this kind of change to the collection at all (by the kind; the role's
 * right to write is the server's to judge, row by row).
 */
export function deviceMayWrite(collection: string, write: DeviceWrite): boolean {
  const kind = syncRule(collection)?.kind;
  return kind === 'documents' || (kind === 'ledger' && write === 'insert');
}
