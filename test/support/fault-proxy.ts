import net from 'node:net';

/**
 * A TCP proxy in front of a test server that can fail the way a field network does:
 * - pass: forward both ways;
 * - refuse: every connection is reset at once (no signal);
 * - cut-responses: requests reach the server, but the connection dies as the answer starts
 *   (the server committed, the device never hears it);
 * - cut-uploads: a connection dies after 8 KB of request body has gone through (an upload
 *   interrupted mid-body).
 * Switching mode also drops every open connection.
 */
export type FaultMode = 'pass' | 'refuse' | 'cut-responses' | 'cut-uploads';

export interface FaultProxy {
  url: string;
  mode: FaultMode;
  setMode(mode: FaultMode): void;
  close(): Promise<void>;
}

export async function startFaultProxy(targetUrl: string): Promise<FaultProxy> {
  const target = new URL(targetUrl);
  const sockets = new Set<net.Socket>();
  let mode: FaultMode = 'pass';

  const server = net.createServer((client) => {
    if (mode === 'refuse') {
      client.resetAndDestroy();
      return;
    }
    const connectionMode = mode;
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(client);
    sockets.add(upstream);
    const kill = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    let sent = 0;
    client.on('data', (chunk: Buffer) => {
      sent += chunk.length;
      if (connectionMode === 'cut-uploads' && sent > 8192) {
        upstream.write(chunk.subarray(0, Math.max(0, chunk.length - (sent - 8192))));
        return kill();
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (connectionMode === 'cut-responses') return kill();
      client.write(chunk);
    });
    client.on('error', kill).on('close', kill);
    upstream.on('error', kill).on('close', kill);
  });
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
