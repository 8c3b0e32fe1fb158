/**
 * Names the server and the SDK share in the replication protocol beyond RxDB's own.
 *
 * A push may carry the device's pull checkpoint (`?checkpoint=<seq>`); when everything the feed
 * holds between it and the push's own writes is what the answer leaves on the device, the answer
 * carries this header with the position to move to, and the device does not pull its own writes
 * back. Clients that send no checkpoint (stock RxDB) get neither and lose nothing.
 */
export const PUSH_CHECKPOINT_HEADER = 'sync-checkpoint';
