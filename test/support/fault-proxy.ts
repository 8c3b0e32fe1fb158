import net from 'node:net';

/**
 * A TCP proxy in front of a test server that can fail the way a field network does:
 * - pass: forward both ways;
 * - refuse: every connection is reset at once (no signal);
 * - cut-responses: requests reach the server, but the connection dies as the answer starts
 *   (the server committed, the device never hears it);
 * - cut-uploads: a connection dies after 8 KB of request body has gone through (an upload
 *   interrupted mid-body);
 * - delay: both ways, every chunk waits `delayMs` (a slow, high-latency link);
 * - black-hole: connections are accepted and never answered nor closed (a dead cell tower);
 * - stall: requests reach the server, answers are held forever and the connection stays open
 *   (the server committed, the device waits).
 * Switching mode drops every open connection (what a device sees when its network changes).
 */
export type FaultMode = 'pass' | 'refuse' | 'cut-responses' | 'cut-uploads' | 'delay' | 'black-hole' | 'stall';

export const FAULT_MODES: readonly FaultMode[] = ['pass', 'refuse', 'cut-responses', 'cut-uploads', 'delay', 'black-hole', 'stall'];

export interface FaultProxy {
  url: string;
  mode: FaultMode;
  setMode(mode: FaultMode): void;
  close(): Promise<void>;
}

export async function startFaultProxy(targetUrl: string, options: { delayMs?: number } = {}): Promise<FaultProxy> {
  const target = new URL(targetUrl);
  const delayMs = options.delayMs ?? 150;
  const sockets = new Set<net.Socket>();
  let mode: FaultMode = 'pass';

  const server = net.createServer((client) => {
    if (mode === 'refuse') {
      client.resetAndDestroy();
      return;
    }
    sockets.add(client);
    client.on('error', () => client.destroy()).on('close', () => sockets.delete(client));
    if (mode === 'black-hole') {
      client.resume(); // read and drop everything, answer nothing
      return;
    }
    relay(client, mode);
  });

  function relay(client: net.Socket, connectionMode: FaultMode): void {
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(upstream);
    const kill = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    const later = (fn: () => void) => (connectionMode === 'delay' ? setTimeout(fn, delayMs) : fn());
    let sent = 0;
    client.on('data', (chunk: Buffer) => {
      sent += chunk.length;
      if (connectionMode === 'cut-uploads' && sent > 8192) {
        upstream.write(chunk.subarray(0, Math.max(0, chunk.length - (sent - 8192))));
        return kill();
      }
      later(() => upstream.write(chunk));
    });
    upstream.on('data', (chunk: Buffer) => {
      if (connectionMode === 'cut-responses') return kill();
      if (connectionMode === 'stall') return; // held forever; the connection stays open
      later(() => client.write(chunk));
    });
    client.on('close', kill);
    upstream.on('error', kill).on('close', () => (connectionMode === 'stall' ? undefined : kill()));
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get mode() {
      return mode;
    },
    setMode(next) {
      mode = next;
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
