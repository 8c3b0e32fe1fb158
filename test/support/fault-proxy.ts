import net from 'node:net';

/**
 * A TCP proxy in front of a test server that fails the way a field network does:
 * - pass: forward both ways;
 * - refuse: every connection is reset at once (no signal: the device's system knows);
 * - cut-responses: requests reach the server, but the connection is reset as the answer starts
 *   (the server committed, the device never hears it);
 * - cut-uploads: a connection is reset after 8 KB of request body has gone through (an upload
 *   interrupted mid-body);
 * - delay: both ways, every chunk waits `delayMs` (a slow, high-latency link);
 * - black-hole: connections are accepted and never answered nor closed (a dead cell tower);
 * - stall: requests reach the server, answers are held forever and the connection stays open
 *   (the server committed, the device waits: a half-open connection).
 *
 * Real networks fail without telling. Switching mode is the device moving to another network:
 * its open connections die silently (they go dead: whatever either side sends is dropped, and
 * neither side hears a thing, ever), except when switching to `refuse`, which resets them (the
 * system knows the network is gone). A dead connection stays dead across later switches and the
 * heal; the device must find out by itself. `loseConnections()` kills the open connections the
 * same silent way without changing the mode (a NAT mapping or a carrier's proxy lost them: a live
 * stream whose heartbeats stop while its socket stays open). The server's side of a dead
 * connection stays open too, as it would until its TCP gave up.
 */
export type FaultMode = 'pass' | 'refuse' | 'cut-responses' | 'cut-uploads' | 'delay' | 'black-hole' | 'stall';

export const FAULT_MODES: readonly FaultMode[] = ['pass', 'refuse', 'cut-responses', 'cut-uploads', 'delay', 'black-hole', 'stall'];

export interface FaultProxy {
  url: string;
  mode: FaultMode;
  setMode(mode: FaultMode): void;
  /** Every open connection dies silently; new ones follow the mode. */
  loseConnections(): void;
  close(): Promise<void>;
}

/** One device connection and, unless it was black-holed from the start, its connection to the server. */
class Link {
  private dead = false;

  constructor(
    private readonly client: net.Socket,
    private readonly upstream: net.Socket | null,
  ) {}

  /** Silent death: nothing passes either way any more, and nothing is closed. */
  die(): void {
    this.dead = true;
  }

  get isDead(): boolean {
    return this.dead;
  }

  /** A reset both ways (only `refuse`, and the cut modes, do this). */
  reset(): void {
    this.client.resetAndDestroy();
    this.upstream?.destroy();
  }

  destroy(): void {
    this.client.destroy();
    this.upstream?.destroy();
  }
}

export async function startFaultProxy(targetUrl: string, options: { delayMs?: number } = {}): Promise<FaultProxy> {
  const target = new URL(targetUrl);
  const delayMs = options.delayMs ?? 150;
  const links = new Set<Link>();
  let mode: FaultMode = 'pass';

  const server = net.createServer((client) => {
    client.on('error', () => client.destroy());
    if (mode === 'refuse') {
      client.resetAndDestroy();
      return;
    }
    if (mode === 'black-hole') {
      const link = new Link(client, null);
      link.die();
      links.add(link);
      client.resume(); // read and drop everything, answer nothing
      client.on('close', () => links.delete(link));
      return;
    }
    relay(client, mode);
  });

  function relay(client: net.Socket, connectionMode: FaultMode): void {
    const upstream = net.connect(Number(target.port), target.hostname);
    const link = new Link(client, upstream);
    links.add(link);
    const forget = () => links.delete(link);
    const cut = () => {
      link.reset();
      forget();
    };
    const later = (fn: () => void) => (connectionMode === 'delay' ? setTimeout(fn, delayMs) : fn());
    let sent = 0;
    client.on('data', (chunk: Buffer) => {
      if (link.isDead) return;
      sent += chunk.length;
      if (connectionMode === 'cut-uploads' && sent > 8192) {
        upstream.write(chunk.subarray(0, Math.max(0, chunk.length - (sent - 8192))));
        return cut();
      }
      later(() => !link.isDead && upstream.write(chunk));
    });
    upstream.on('data', (chunk: Buffer) => {
      if (link.isDead) return;
      if (connectionMode === 'cut-responses') return cut();
      if (connectionMode === 'stall') return; // held forever; the connection stays open
      later(() => !link.isDead && client.write(chunk));
    });
    // A side that closes by itself closes the other, unless the link is dead (nothing gets through).
    client.on('close', () => {
      if (!link.isDead) upstream.destroy();
      forget();
    });
    upstream.on('error', () => undefined).on('close', () => {
      if (!link.isDead && connectionMode !== 'stall') client.destroy();
    });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get mode() {
      return mode;
    },
    setMode(next) {
      if (next === mode) return;
      mode = next;
      for (const link of links) {
        if (next === 'refuse') link.reset();
        else link.die();
      }
      if (next === 'refuse') links.clear();
    },
    loseConnections() {
      for (const link of links) link.die();
    },
    close: () =>
      new Promise((resolve) => {
        for (const link of links) link.destroy();
        links.clear();
        server.close(() => resolve());
      }),
  };
}
