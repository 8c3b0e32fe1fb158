import { deviceProcess, initialSync, liveLatency, localWrites, pushOffline, startSeededServer, type RunningServer } from '../sync.js';
import { median, PAGE, RUNS, type SideFigures } from './figures.js';
import { startWireCounter } from './wire-counter.js';

const phase = (name: string) => console.error(`[peers ${new Date().toISOString().slice(11, 19)}] ours: ${name}`);

/**
 * Our side, through the sync bench's own code: its seeded server (the built server in a child
 * process), its device process, its in-process replica, its offline push and its live measure.
 * `seeded` runs first, while the store holds only the seed (the workload is exported then).
 */
export async function measureOurs(engine: 'pglite' | 'postgres', postgresUrl: string | undefined, seeded?: (server: RunningServer) => Promise<void>): Promise<SideFigures> {
  const server = await startSeededServer(engine, postgresUrl);
  try {
    if (seeded) await seeded(server);
    phase(`${engine}: device processes`);
    const devices = [];
    for (let i = 0; i < RUNS.deviceSyncs; i++) devices.push(await deviceProcess(server, PAGE));
    phase(`${engine}: bytes on the wire`);
    const counter = await startWireCounter(server.url);
    await deviceProcess({ ...server, url: counter.url }, PAGE).finally(() => counter.close());
    phase(`${engine}: the sync bench's replica`);
    const benchSyncs = [];
    for (let i = 0; i < RUNS.benchSyncs; i++) benchSyncs.push(await initialSync(server));
    phase(`${engine}: pushes`);
    const pushes = [];
    for (let i = 0; i < RUNS.pushes; i++) pushes.push(await pushOffline(server));
    phase(`${engine}: live latency`);
    const live = await liveLatency(server, 0);
    return {
      name: engine === 'pglite' ? 'ours, PGlite' : 'ours, PostgreSQL',
      documents: devices[0]!.visits,
      deviceSyncs: devices.map((d) => d.seconds),
      devicePeakRssMb: Math.max(...devices.map((d) => d.peakRssMb)),
      benchSyncs,
      pushes,
      localWriteMs: median(localWrites.splice(0)),
      live,
      serverPeakRssMb: await server.peakRssMb(),
      wire: counter.bytes(),
    };
  } finally {
    await server.stop();
  }
}
