import { PROTOCOL_VERSION_HEADER, SYNC_PROTOCOL_VERSION } from '../../shared/index.js';

/**
 * The sync protocol version this build of the SDK speaks (shared/sync/protocol-version.ts): the
 * protocol's current one, unless the build set `POOL_SYNC_PROTOCOL_BUILT_AS` (an esbuild define).
 * Tests build the previous app that way, as a phone that has not updated yet would run it.
 */
declare const POOL_SYNC_PROTOCOL_BUILT_AS: number | undefined;

export const BUILT_PROTOCOL_VERSION: number = typeof POOL_SYNC_PROTOCOL_BUILT_AS === 'number' ? POOL_SYNC_PROTOCOL_BUILT_AS : SYNC_PROTOCOL_VERSION;

/**
 * The header naming the version, for every request to the API. Version 0 is a client from before
 * versions, which named none: it sends nothing, exactly as those apps do.
 */
export function protocolHeaders(version: number = BUILT_PROTOCOL_VERSION): Record<string, string> {
  return version === 0 ? {} : { [PROTOCOL_VERSION_HEADER]: String(version) };
}
