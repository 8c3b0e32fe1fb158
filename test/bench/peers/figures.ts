/** One side's figures in the peers comparison, measured the same way on every side. */
export interface SideFigures {
  name: string;
  /** Documents each device held after its initial sync (every side must agree). */
  documents: number;
  /** Initial syncs, each into a fresh replica in a fresh device process, in seconds. */
  deviceSyncs: number[];
  /** The largest peak RSS of those device processes, MB. */
  devicePeakRssMb: number;
  /** Ours only: the sync bench's own measure (its replica in the bench process), in seconds. */
  benchSyncs?: number[];
  /** Pushes of 1,000 visits recorded + 1,000 edited offline, in seconds (null: a peer with no offline writes). */
  pushes: number[] | null;
  /** The device's own writes of those 2,000 changes (median), ms. */
  localWriteMs: number | null;
  live: { p50: number; p99: number; missed: number };
  serverPeakRssMb: number;
  /** Bytes of one initial sync through a TCP counter, both directions. */
  wire: { up: number; down: number };
}

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** How many runs of each measure, and the page the devices pull (and push) by. */
export const RUNS = { benchSyncs: 5, deviceSyncs: 3, pushes: 5 };
export const PAGE = Number(process.env.BENCH_PEERS_PAGE ?? 1000);
