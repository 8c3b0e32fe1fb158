import type { StoreSize } from '../storage/store-size.js';

/**
 * Whether the embedded store has outgrown what one process of it serves well. Measured with the
 * morning-storm benchmark (test/bench/RESULTS.md): past a company size every phone's first sync
 * waits on the one thread the embedded engine runs in, and its WebAssembly memory, which never
 * shrinks, grows with the store. The server stays ready (it still works, only slower); it says so
 * where an operator looks: a log line and /readyz's `warnings`.
 */
export interface EmbeddedStoreCapacity {
  /** Technicians whose phones sync (EMBEDDED_STORE_MAX_TECHNICIANS). */
  maxTechnicians: number;
  /** Visits the devices hold, all organizations together (EMBEDDED_STORE_MAX_VISITS). */
  maxVisits: number;
}

/** Something an operator should act on that does not make the server unready; closed set of codes. */
export interface ServerWarning {
  code: 'EMBEDDED_STORE_OUTGROWN';
  message: string;
}

/** Where the docs say how to choose the store and move to PostgreSQL. */
export const CHOOSING_THE_STORE_DOC = 'server/README.md#choosing-the-store';

/** The warning for a store of this size, or none while it is within the capacity. */
export function capacityWarnings(size: StoreSize, capacity: EmbeddedStoreCapacity): ServerWarning[] {
  const over: string[] = [];
  if (size.technicians > capacity.maxTechnicians) over.push(`${size.technicians} technicians with a phone (capacity ${capacity.maxTechnicians})`);
  if (size.visits > capacity.maxVisits) over.push(`${size.visits} visits on the devices (capacity ${capacity.maxVisits})`);
  if (!over.length) return [];
  return [
    {
      code: 'EMBEDDED_STORE_OUTGROWN',
      message:
        `The embedded store holds ${over.join(' and ')}: a morning's first syncs may take longer than 20 s and the server more than 400 MB. ` +
        `Move to PostgreSQL (set DATABASE_URL; see ${CHOOSING_THE_STORE_DOC}).`,
    },
  ];
}
