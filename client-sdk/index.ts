/**
 * The public surface of the client SDK: `createPoolClient(...)`. Works in Node and in browsers.
 */
export { createPoolClient, type PoolClient, type PoolClientOptions } from './client.js';
export type { SyncStatus, SyncState, MergedChange } from './status.js';
export type { FailureKind } from './replication/failure.js';
export type { Departure } from './replication/departures.js';
export { PoolClientError } from './errors.js';
export type { VisitInput, PhotoBytes } from './actions/visits.js';
export type { QuoteInput } from './actions/quotes.js';
export { COLLECTION_NAMES } from './replica/database.js';
