/**
 * The sync protocol's version: what a client says it speaks, what this code speaks, and the
 * history of what each version changed (README.md beside this file says it in full).
 *
 * A client names its version in the `Sync-Protocol-Version` header of every sync request (pull,
 * push, stream) and, from the apps, of GraphQL too. A sync request without one is version 0: an
 * app installed before versions existed, or a stock RxDB replication. The server serves every
 * version from its floor (SYNC_MIN_PROTOCOL_VERSION, default 0) up to SYNC_PROTOCOL_VERSION, and
 * answers any other with 426 VERSION_NOT_SUPPORTED before it reads or writes anything, so a phone
 * back from a week offline with an old app keeps its outbox and is told to update.
 *
 * Changing the protocol: a change an older client can ignore needs no new version. One it cannot
 * ignore, or one a client needs the server to have, takes the next number and a line in the
 * history; the server keeps serving the versions above its floor (branching on the client's version
 * where behaviour differs), and the floor is raised by configuration only once the apps that spoke
 * the older versions have had time to update.
 */
export const SYNC_PROTOCOL_VERSION = 1;

/** The request header that carries the client's version: a decimal integer. */
export const PROTOCOL_VERSION_HEADER = 'sync-protocol-version';

/** The protocol name and version a 426 answer's `Upgrade` header offers (RFC 9110 asks a 426 for one). */
export const PROTOCOL_UPGRADE_TOKEN = `pool-sync/${SYNC_PROTOCOL_VERSION}`;

export interface ProtocolVersionEntry {
  version: number;
  /** What the version changed, for whoever raises the floor past it. */
  changed: string;
}

/** Every version there has been, oldest first; a new one is added here with SYNC_PROTOCOL_VERSION. */
export const PROTOCOL_HISTORY: readonly ProtocolVersionEntry[] = [
  {
    version: 0,
    changed:
      'No version named: RxDB replication over HTTP (pull by seq checkpoint, push of assumedMasterState/newDocumentState rows, a stream of RESYNC and change batches), whose optional additions (a push row\'s changeId and earlier, a push\'s checkpoint and the Sync-Checkpoint answer, a push naming its stream\'s Sync-Stream id, a batch\'s since, RESYNC\'s heartbeatMs, departures marked _left, band pulls with heads, a full pull naming its held band) a client may or may not send; stock RxDB clients send none of them.',
  },
  {
    version: 1,
    changed:
      'The client names its version in the Sync-Protocol-Version header and may rely on every optional addition of version 0 being served; a version the server does not serve is answered 426 VERSION_NOT_SUPPORTED with the versions it serves, before anything is read or written.',
  },
];

/** The lowest floor a server may be set to, and the highest: its own version. */
export const PROTOCOL_FLOOR_RANGE = { min: 0, max: SYNC_PROTOCOL_VERSION } as const;

/**
 * The version a request's header names: 0 when absent (a client from before versions), null when
 * it is not a decimal integer (which the server refuses as bad input).
 */
export function protocolVersionOf(header: string | undefined): number | null {
  if (header === undefined) return 0;
  return /^\d{1,6}$/.test(header.trim()) ? Number(header.trim()) : null;
}

/** Versions a server with this floor serves: from the floor up to its own. */
export function servesProtocolVersion(version: number, floor: number): boolean {
  return version >= floor && version <= SYNC_PROTOCOL_VERSION;
}

/** What a refusal's body carries beside its code and message, for the client to show and act on. */
export interface ProtocolVersionRefusal {
  clientVersion: number;
  minVersion: number;
  currentVersion: number;
}
