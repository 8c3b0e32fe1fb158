import { median, PAGE, RUNS, type SideFigures } from './figures.js';

/**
 * The side-by-side table: each peer's figure, then each of ours with its ratios to the peers'.
 * Every ratio reads "how many times better ours is" (the peer's time, memory or bytes divided by
 * ours), so below 1 means the peer does better; with two peers a ratio cell holds both, in the
 * peers' order. A measure a side does not have is "—".
 */
interface Row {
  measure: string;
  /** The figure (smaller is better) and how it is printed; null where the side has no such measure. */
  value(side: SideFigures): number | null;
  show(value: number): string;
  /** Compared with the peer's value of another row (ours has a measure the peers have no twin of). */
  peerValue?(peer: SideFigures): number | null;
}

const seconds = (v: number) => `${v.toFixed(2)} s`;
const ms = (v: number) => `${v.toFixed(1)} ms`;
const mb = (v: number) => `${v.toFixed(0)} MB`;

function rows(visits: number): Row[] {
  const pages = PAGE.toLocaleString('en-US');
  return [
    { measure: `initial sync of ${visits.toLocaleString('en-US')} visits into a fresh in-memory replica, in a device process of its own (PouchDB and ours by pages of ${pages}, Zero as zero-cache sends them; median of ${RUNS.deviceSyncs})`, value: (s) => median(s.deviceSyncs), show: seconds },
    { measure: `the same, ours as \`npm run bench\` measures it (the replica in the bench process, pulls of 5,000; median of ${RUNS.benchSyncs}), against the peers' figures above`, value: (s) => (s.benchSyncs ? median(s.benchSyncs) : null), show: seconds, peerValue: (p) => median(p.deviceSyncs) },
    { measure: `push of 1,000 new + 1,000 edited visits made offline, until the server holds them (median of ${RUNS.pushes}; Zero refuses writes while offline)`, value: (s) => (s.pushes ? median(s.pushes) : null), show: seconds },
    { measure: 'the device writing those 2,000 changes locally, one at a time (median)', value: (s) => s.localWriteMs, show: (v) => `${v.toFixed(0)} ms` },
    { measure: 'live latency p50: a visit written on the server -> in a subscribed replica (200 writes 20 ms apart)', value: (s) => s.live.p50, show: ms },
    { measure: 'live latency p99 (the same 200)', value: (s) => s.live.p99, show: ms },
    { measure: "server peak RSS (the whole run; Zero: zero-cache's processes together)", value: (s) => s.serverPeakRssMb, show: mb },
    { measure: 'device peak RSS (a process that only syncs)', value: (s) => s.devicePeakRssMb, show: mb },
    { measure: 'bytes on the wire for one initial sync, server -> device (TCP, headers included)', value: (s) => s.wire.down, show: (v) => `${(v / 1e6).toFixed(1)} MB (${(v / visits).toFixed(0)} B a visit)` },
    { measure: 'the same, device -> server', value: (s) => s.wire.up, show: (v) => `${(v / 1e3).toFixed(0)} KB` },
  ];
}

const ratio = (peer: number | null, ours: number) => (peer === null ? '—' : ours > 0 ? `${(peer / ours).toFixed(1)}x` : '—');
const runs = (values: number[] | null) => (values ? values.map((v) => v.toFixed(2)).join(', ') : '—');

export function printComparison(peers: SideFigures[], ours: SideFigures[]): void {
  const visits = (peers[0] ?? ours[0])!.documents;
  console.log(`\nSync against ${peers.length === 1 ? 'a peer' : 'peers'}: ${visits.toLocaleString('en-US')} visits, the same documents on every side`);
  console.log(`| measure | ${peers.map((p) => p.name).join(' | ')} | ${ours.map((o) => `${o.name} | ratio`).join(' | ')} |`);
  console.log(`|---|${peers.map(() => '---|').join('')}${ours.map(() => '---|---|').join('')}`);
  for (const row of rows(visits)) {
    const peerValues = peers.map((p) => (row.peerValue ? row.peerValue(p) : row.value(p)));
    const peerCells = peers.map((_, i) => (row.peerValue ? '(above)' : peerValues[i] === null ? '—' : row.show(peerValues[i]!)));
    const ourCells = ours.map((o) => {
      const value = row.value(o);
      return value === null ? '— | —' : `${row.show(value)} | ${peerValues.map((p) => ratio(p, value)).join(' · ')}`;
    });
    console.log(`| ${row.measure} | ${[...peerCells, ...ourCells].join(' | ')} |`);
  }
  const sides = [...peers, ...ours];
  const missed = sides.filter((s) => s.live.missed > 0).map((s) => `${s.name} missed ${s.live.missed}`);
  const order = peers.length > 1 ? ` (each ratio cell: ${peers.map((p) => `${p.name}'s`).join(' · ')})` : '';
  console.log(`\nRatios: the peer's figure divided by ours (above 1, ours is better)${order}. Runs: ${sides.map((s) => `${s.name}: syncs ${runs(s.deviceSyncs)}; pushes ${runs(s.pushes)}`).join(' · ')}${missed.length ? ` · live writes ${missed.join(', ')}` : ''}`);
}
