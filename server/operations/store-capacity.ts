/**
 * Whether the embedded store has outgrown what one process of it serves well. Measured with the
 * morning-storm benchmark (server/README.md, "Choosing the store"): past a company size every
 * phone's first sync of the day waits on the one thread the embedded engine runs in, and its
 * WebAssembly memory, which never shrinks, grows with the requests it holds. The server stays ready
 * (it works, only slower); it says so where an operator looks: a log line and /readyz's `warnings`.
 */
export interface EmbeddedStoreCapacity {
  /** Technicians with a phone, all organizations together (EMBEDDED_STORE_MAX_TECHNICIANS). */
  maxTechnicians: number;
}

/** Something an operator should act on that does not make the server unready; a closed set of codes. */
export interface ServerWarning {
  code: 'EMBEDDED_STORE_OUTGROWN';
  message: string;
}

/** Where the docs say how to choose the store. */
export const CHOOSING_THE_STORE_DOC = 'server/README.md#choosing-the-store';

/** The warning for a store with this many technicians, or none while it is within the capacity. */
export function capacityWarnings(technicians: number, capacity: EmbeddedStoreCapacity): ServerWarning[] {
  if (technicians <= capacity.maxTechnicians) return [];
  return [
    {
      code: 'EMBEDDED_STORE_OUTGROWN',
      message:
        `The embedded store serves ${technicians} technicians with a phone, past its capacity of ${capacity.maxTechnicians}: ` +
        `a morning's first syncs may take longer than 20 s and the server more than 400 MB. ` +
        `Move to PostgreSQL (set DATABASE_URL; see ${CHOOSING_THE_STORE_DOC}).`,
    },
  ];
}
