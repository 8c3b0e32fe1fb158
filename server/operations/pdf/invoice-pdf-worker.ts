import { parentPort, threadId } from 'node:worker_threads';
import { renderInvoicePdf } from './invoice-pdf.js';
import type { InvoiceDocument } from './invoice-pdf-content.js';
import type { Logo } from './pdf-page.js';

/**
 * The entry of a PDF thread (invoice-pdf-pool.ts starts it): renders the invoice documents it is
 * sent, one at a time, and answers each one's bytes. The fonts are read and parsed on the first
 * document and serve every later one (fonts.ts keeps them per thread). Its own entry in the built
 * bundle (server/dist/invoice-pdf-worker.js), as a thread loads a file of its own.
 */
export interface RenderRequest {
  id: number;
  document: InvoiceDocument;
  logo: Logo | null;
}

export type RenderAnswer = { id: number; threadId: number; bytes: Uint8Array } | { id: number; threadId: number; error: string };

const port = parentPort;
if (!port) throw new Error('invoice-pdf-worker.ts runs as a worker thread (see invoice-pdf-pool.ts)');

port.on('message', (request: RenderRequest) => {
  // A Buffer arrives as a plain Uint8Array: pdfkit tells an image by Buffer, so it is made one again.
  const logo = request.logo && { ...request.logo, bytes: Buffer.from(request.logo.bytes.buffer, request.logo.bytes.byteOffset, request.logo.bytes.byteLength) };
  // Through a promise: a document that throws while it is laid out fails alone, the thread lives on.
  Promise.resolve(request.document).then((document) => renderInvoicePdf(document, logo)).then(
    (bytes) => {
      // Handed over, not copied; a small Buffer may be a slice of a shared pool, so it is copied first.
      const owned = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? new Uint8Array(bytes.buffer) : new Uint8Array(bytes);
      port.postMessage({ id: request.id, threadId, bytes: owned } satisfies RenderAnswer, [owned.buffer as ArrayBuffer]);
    },
    (error: unknown) => port.postMessage({ id: request.id, threadId, error: error instanceof Error ? error.message : String(error) } satisfies RenderAnswer),
  );
});
