/**
 * The public surface of the client SDK: `createPoolClient(...)`. Works in Node and in browsers.
 */
export { createPoolClient, DEFAULT_COLLECTIONS, MAX_SYNCED_COLLECTIONS, type PoolClient, type PoolClientOptions } from './client.js';
export type { SyncStatus, SyncState, MergedChange } from './status.js';
export type { FailureKind } from './replication/failure.js';
export type { Departure } from './replication/departures.js';
export type { StorageFull } from './replica/storage-full.js';
export type { WipeResult } from './replication/wipe.js';
export { PoolClientError } from './errors.js';
export type { VisitInput, PhotoBytes } from './actions/visits.js';
export type { QuoteInput } from './actions/quotes.js';
export type { DoseInput } from './actions/doses.js';
export type { TakePaymentInput, BalanceDue } from './actions/payments.js';
// The water chemistry engine, the same the server runs: balance and doses offline.
export {
  waterBalance,
  visitBalance,
  visitChemistry,
  chemistrySettingsOf,
  toItemUnits,
  CURRENT_FORMULA_VERSION,
  FORMULA_VERSIONS,
  type BalanceInput,
  type WaterBalance,
  type Dose,
  type VisitChemistry,
} from '../shared/chemistry/index.js';
export { COLLECTION_NAMES } from './replica/database.js';
