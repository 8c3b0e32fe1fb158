/**
 * Names the server and the SDK share in the replication protocol beyond RxDB's own.
 *
 * A push may carry the device's pull checkpoint (`?checkpoint=<seq>`); when everything the feed
 * holds between it and the push's own writes is what the answer leaves on the device, the answer
 * carries this header with the position to move to, and the device does not pull its own writes
 * back. Clients that send no checkpoint (stock RxDB) get neither and lose nothing.
 */
export const PUSH_CHECKPOINT_HEADER = 'sync-checkpoint';

/**
 * The live stream is answered with its id in this header (the device's own when it chose one:
 * `&stream=<id>` on the stream's request). A push may name it (`&stream=<id>`,
 * beside its checkpoint): when the answer carries `sync-checkpoint`, that stream is not sent the
 * push's own writes back (server/operations/sync/own-writes.ts). Clients that name no stream are
 * sent everything, as before.
 */
export const SYNC_STREAM_HEADER = 'sync-stream';
