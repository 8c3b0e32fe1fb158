import type { Response } from 'express';

/**
 * The live stream's response: Server-Sent Events written straight to the connection's socket.
 *
 * One change reaches every open stream, a thousand of them on a busy server, and the kernel's
 * socket write is most of what each costs. Through `res.write` each event was framed as an HTTP
 * chunk in four pieces and held until the next tick (Node corks the socket), so every device's
 * write waited for the whole loop; with 1,000 idle streams the server spent 10.7-11.6 ms of CPU
 * per change that way (the event already a buffer) against 8.0-8.4 ms written here (sync bench's
 * live part, 2026-11-29). So the body is not chunked: it ends when the connection closes, which is
 * how an event stream ends anyway (a revoked token, a server shutting down), and each event goes
 * out as one buffer, the same for every stream.
 */
export interface EventStreamResponse {
  /** Writes bytes of the event stream now (nothing once the connection is gone). */
  write(bytes: Buffer): void;
  /** Ends the stream (and so the connection). */
  end(): void;
}

export function openEventStream(res: Response, headers: Record<string, string> = {}): EventStreamResponse {
  // No Transfer-Encoding: chunked, hence "Connection: close": the body is everything until then.
  (res as Response & { useChunkedEncodingByDefault: boolean }).useChunkedEncodingByDefault = false;
  res.writeHead(200, {
    ...headers,
    'content-type': 'text/event-stream; charset=utf-8',
    // Never compressed (no-transform): a compressor per open stream holds about 180 KB of zlib
    // state, 181 MB for 1,000 idle devices, to shrink events of a few KB. Bulk data comes by
    // pulls, which are compressed.
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
  });
  res.flushHeaders();
  const socket = res.socket!;
  socket.setNoDelay(true);
  return {
    write: (bytes) => {
      if (socket.writable) socket.write(bytes);
    },
    end: () => res.end(),
  };
}

let lastJson = '';
let lastFrame = Buffer.alloc(0);

/**
 * An event's bytes (`data: <json>`), made once: the fan-out hands every stream the same JSON
 * string, one after the other, so the last one made is nearly always the one asked for.
 */
export function eventFrame(json: string): Buffer {
  if (json !== lastJson) {
    lastFrame = Buffer.from(`data: ${json}\n\n`);
    lastJson = json;
  }
  return lastFrame;
}
