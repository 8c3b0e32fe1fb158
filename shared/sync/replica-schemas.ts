import type { CollectionName, ReplicatedResource } from '../resources/index.js';
import { rxSchemaOf, type RxJsonSchemaLike } from '../schema/rxdb.js';
import { schemaHash } from '../schema/schema-hash.js';
import { REPLICA_INDEXES, REPLICA_KEYS } from './replica-keys.js';

/**
 * Every shape each synced collection's replica schema has had, oldest first, as `schemaHash` of
 * the RxDB schema without its version. A device opens a collection at version = the index of the
 * last entry; a replica stored under an earlier version is migrated in place by RxDB (the SDK's
 * `replicaMigrations`), keeping its documents and its changes waiting to sync. Without this, a
 * field added to a resource makes RxDB refuse every replica a browser already holds (error DB6).
 *
 * Changing a replicated resource's fields changes its hash: `test/replica-schemas.unit.test.ts`
 * then fails and names the hash to append here. Never edit or remove an entry.
 */
export const REPLICA_SCHEMA_HISTORY: Readonly<Record<CollectionName, readonly string[]>> = {
  // After visit reports: settings.sendVisitReports; then water chemistry: settings.waterChemistry;
  // then billing: settings.chemicalBilling, chemicalMarkupPercent, taxRounding, flatRateTiming.
  organization: ['d622694c54bd0a55', '06e353d26a8759b9', 'de1296d73e45bb28', 'fa46377dbed6d272'],
  serviceTypes: ['96a8e56cda8a31af'],
  // Before scopes per technician: without createdById / technicianId.
  // After visit reports: reportNotification one of EMAIL, TEXT, BOTH, NONE.
  // After billing: billingMethod and billingFrequency from their lists, taxId, service.monthlyRate.
  customers: ['61fd6da3b2d564e6', '4c0a64f70e176f5e', 'a49e36e369c7f056', '9b7f6bd890373bcb'],
  appointments: ['7a288789bae4cbce'],
  // Then with createdById; then with the replica keys startKey and technicianKey and their indexes (replica-keys.ts);
  // then with chemistryVersion.
  services: ['ffe0f7569378f1c1', '7c76f3e12c138068', '872d1c6661433405', 'cc8786133531edc8'],
  quotes: ['6770b2f2b0716f71'],
  inventoryLocations: ['2fad4b5d3e023b52', 'c256830163c62dac'],
  inventoryItems: ['5f94bfd73d844880'],
  stockLevels: ['0a4b2f85e5524c26'],
  // With a dose.
  stockMovements: ['56eaa4407cd0339f', 'bc03e272fe5189f1'],
  // Billing on devices: invoices read-only, payments a ledger.
  invoices: ['4a86223f1f89bcc6'],
  payments: ['ddcc7c2ebb442eaf'],
};

/** The replica's schema of a resource as it now stands (the resource's fields, and its replica keys and indexes), without a version. */
function currentSchema(resource: ReplicatedResource): Omit<RxJsonSchemaLike, 'version'> & { indexes?: string[][] } {
  const { version: _version, ...schema } = rxSchemaOf(resource);
  const keys = REPLICA_KEYS[resource.collection];
  if (!keys) return schema;
  const properties = { ...schema.properties };
  for (const [name, key] of Object.entries(keys)) properties[name] = { type: 'string', maxLength: key.maxLength };
  const indexes = (REPLICA_INDEXES[resource.collection] ?? []).map((index) => [...index]);
  return { ...schema, properties, required: [...schema.required, ...Object.keys(keys)], indexes };
}

/** The fingerprint of a resource's replica schema as its fields now define it. */
export function replicaSchemaHash(resource: ReplicatedResource): string {
  return schemaHash(currentSchema(resource));
}

/** The replica's schema of a resource, at its current version. */
export function replicaSchemaOf(resource: ReplicatedResource): RxJsonSchemaLike {
  return { ...currentSchema(resource), version: REPLICA_SCHEMA_HISTORY[resource.collection].length - 1 };
}
