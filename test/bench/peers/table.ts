import { median, PAGE, RUNS, type SideFigures } from './figures.js';

/**
 * The side-by-side table: the peer's figure, then each of ours with its ratio to the peer's.
 * Every ratio reads "how many times better ours is" (the peer's time, memory or bytes divided by
 * ours), so below 1 means the peer does better.
 */
interface Row {
  measure: string;
  /** The figure (smaller is better) and how it is printed. */
  value(side: SideFigures): number | null;
  show(value: number): string;
  /** Compared with the peer's value of another row (ours has a measure the peer has no twin of). */
  peerValue?(peer: SideFigures): number;
}

const seconds = (v: number) => `${v.toFixed(2)} s`;
const ms = (v: number) => `${v.toFixed(1)} ms`;
const mb = (v: number) => `${v.toFixed(0)} MB`;

function rows(visits: number): Row[] {
  const pages = PAGE.toLocaleString('en-US');
  return [
    { measure: `initial sync of ${visits.toLocaleString('en-US')} visits into a fresh in-memory replica, in a device process of its own (pages of ${pages}; median of ${RUNS.deviceSyncs})`, value: (s) => median(s.deviceSyncs), show: seconds },
    { measure: `the same, ours as \`npm run bench\` measures it (the replica in the bench process, pulls of 5,000; median of ${RUNS.benchSyncs}), against the peer's figure above`, value: (s) => (s.benchSyncs ? median(s.benchSyncs) : null), show: seconds, peerValue: (p) => median(p.deviceSyncs) },
    { measure: `push of 1,000 new + 1,000 edited visits made offline, until the server holds them (median of ${RUNS.pushes})`, value: (s) => median(s.pushes), show: seconds },
    { measure: 'the device writing those 2,000 changes locally, one at a time (median)', value: (s) => s.localWriteMs, show: (v) => `${v.toFixed(0)} ms` },
    { measure: 'live latency p50: a visit written on the server -> in a subscribed replica (200 writes 20 ms apart)', value: (s) => s.live.p50, show: ms },
    { measure: 'live latency p99 (the same 200)', value: (s) => s.live.p99, show: ms },
    { measure: 'server peak RSS (the whole run)', value: (s) => s.serverPeakRssMb, show: mb },
    { measure: 'device peak RSS (a process that only syncs)', value: (s) => s.devicePeakRssMb, show: mb },
    { measure: 'bytes on the wire for one initial sync, server -> device (TCP, headers included)', value: (s) => s.wire.down, show: (v) => `${(v / 1e6).toFixed(1)} MB (${(v / visits).toFixed(0)} B a visit)` },
    { measure: 'the same, device -> server', value: (s) => s.wire.up, show: (v) => `${(v / 1e3).toFixed(0)} KB` },
  ];
}

const ratio = (peer: number, ours: number) => (ours > 0 ? `${(peer / ours).toFixed(1)}x` : '—');

export function printComparison(peer: SideFigures, ours: SideFigures[]): void {
  console.log(`\nSync against a peer: ${peer.documents.toLocaleString('en-US')} visits, the same documents on both sides`);
  console.log(`| measure | ${peer.name} | ${ours.map((o) => `${o.name} | ratio`).join(' | ')} |`);
  console.log(`|---|---|${ours.map(() => '---|---|').join('')}`);
  for (const row of rows(peer.documents)) {
    const peerValue = row.peerValue ? row.peerValue(peer) : row.value(peer)!;
    const cells = ours.map((o) => {
      const value = row.value(o);
      return value === null ? '— | —' : `${row.show(value)} | ${ratio(peerValue, value)}`;
    });
    console.log(`| ${row.measure} | ${row.peerValue ? '(above)' : row.show(peerValue)} | ${cells.join(' | ')} |`);
  }
  const missed = [peer, ...ours].filter((s) => s.live.missed > 0).map((s) => `${s.name} missed ${s.live.missed}`);
  console.log(`\nRatios: the peer's figure divided by ours (above 1, ours is better). Runs: ${[peer, ...ours].map((s) => `${s.name}: syncs ${s.deviceSyncs.map((v) => v.toFixed(2)).join(', ')}; pushes ${s.pushes.map((v) => v.toFixed(2)).join(', ')}`).join(' · ')}${missed.length ? ` · live writes ${missed.join(', ')}` : ''}`);
}
