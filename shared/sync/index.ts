/**
 * The replication protocol and the sync rules, in one place both ends import (as Zero keeps
 * zero-protocol for zero-cache and zero-client): the server validates what devices send with
 * these schemas, the SDK what the server sends, and neither keeps a copy of a limit or a rule.
 */
export * from './document.js';
export * from './headers.js';
export * from './live.js';
export * from './pull.js';
export * from './push.js';
export * from './protocol-version.js';
export * from './rules.js';
export * from './scopes.js';
export * from './replica-schemas.js';
export * from './priorities.js';
export * from './replica-keys.js';
