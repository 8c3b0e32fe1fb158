import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * Counts every byte between a device and a server, as TCP carries it: headers, bodies as
 * compressed, each protocol's requests however many it makes. A plain TCP relay on loopback, so
 * both sides' figures are measured the same way whatever their HTTP clients do.
 */
export interface WireCounter {
  url: string;
  /** Bytes from the device to the server, and from the server to the device. */
  bytes(): { up: number; down: number };
  close(): Promise<void>;
}

export async function startWireCounter(targetUrl: string): Promise<WireCounter> {
  const target = new URL(targetUrl);
  const counted = { up: 0, down: 0 };
  const sockets = new Set<net.Socket>();
  const relay = net.createServer((device) => {
    const server = net.connect(Number(target.port), target.hostname);
    for (const s of [device, server]) {
      sockets.add(s);
      s.once('close', () => sockets.delete(s));
      s.on('error', () => {
        device.destroy();
        server.destroy();
      });
    }
    device.on('data', (chunk: Buffer) => void (counted.up += chunk.length));
    server.on('data', (chunk: Buffer) => void (counted.down += chunk.length));
    device.pipe(server);
    server.pipe(device);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const { port } = relay.address() as AddressInfo;
  const url = new URL(targetUrl);
  url.port = String(port);
  return {
    url: url.toString().replace(/\/$/, ''),
    bytes: () => ({ ...counted }),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => relay.close(resolve));
    },
  };
}
