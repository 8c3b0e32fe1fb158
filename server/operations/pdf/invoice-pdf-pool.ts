import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { InvoiceDocument } from './invoice-pdf-content.js';
import type { RenderAnswer, RenderRequest } from './invoice-pdf-worker.js';
import type { Logo } from './pdf-page.js';

/**
 * Invoice PDFs made on worker threads (INVOICE_PDF_WORKERS of them), so the tens of milliseconds
 * a PDF takes are not taken from the thread answering requests. A thread is sent the document as
 * plain data (structured clone) and answers the bytes; each renders one document at a time, and
 * what finds every thread busy waits its turn here. Threads start on the first document and end
 * after a minute without one (each holds its parsed fonts, tens of MB). A thread that dies, or
 * does not answer within a minute, fails the document it had, and the next document starts a new one.
 */
export interface InvoicePdfRenderer {
  render(document: InvoiceDocument, logo: Logo | null): Promise<Buffer>;
  /** Documents answered by a thread so far (the worker's test reads it). */
  readonly rendered: number;
  close(): Promise<void>;
}

/** One thread per core but the one answering requests, at most 4 (1 on a 2-core machine). */
export const defaultPdfThreads = () => Math.max(1, Math.min(4, availableParallelism() - 1));

const IDLE_MS = 60_000;
/** A document not answered by then fails, and its thread is ended: a stuck render must not hold the worker's round. */
const RENDER_DEADLINE_MS = 60_000;

interface Job {
  request: RenderRequest;
  resolve(bytes: Buffer): void;
  reject(error: Error): void;
}

interface Thread {
  worker: Worker;
  job: Job | null;
  idle: NodeJS.Timeout | null;
  deadline: NodeJS.Timeout | null;
}

/**
 * A new thread for the pool. In the built server this module is inside server/dist/main.js and the
 * thread's entry is the bundle's own server/dist/invoice-pdf-worker.js (package.json's
 * build:server). From source (`node --import tsx`, vitest) the entry is the .ts file beside this
 * one, and the thread registers tsx first: a thread does not inherit its parent's module loader,
 * and `--import tsx` in a thread's execArgv is not applied on Node 20.
 */
function newThreadWorker(): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./invoice-pdf-worker.js', import.meta.url));
  const tsx = tsxApiUrl();
  const entry = new URL('./invoice-pdf-worker.ts', import.meta.url).href;
  return new Worker(`import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`, { eval: true });
}

/** tsx's ESM API as its package exports it (a require.resolve would find its CommonJS build). */
function tsxApiUrl(): string {
  const manifest = createRequire(import.meta.url).resolve('tsx/package.json');
  const { exports } = JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, { import: { default: string } }> };
  return pathToFileURL(path.join(path.dirname(manifest), exports['./esm/api']!.import.default)).href;
}

export class InvoicePdfPool implements InvoicePdfRenderer {
  private readonly threads = new Set<Thread>();
  private readonly waiting: Job[] = [];
  private nextId = 1;
  rendered = 0;
  /** Threads started so far (one that died and was replaced counts twice). */
  started = 0;

  constructor(private readonly size: number = defaultPdfThreads()) {
    if (!Number.isInteger(size) || size < 1) throw new Error(`a PDF pool needs at least one thread (got ${size})`);
  }

  render(document: InvoiceDocument, logo: Logo | null): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ request: { id: this.nextId++, document, logo }, resolve, reject });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    const threads = [...this.threads];
    this.threads.clear();
    for (const job of this.waiting.splice(0)) job.reject(new Error('the PDF pool was closed'));
    await Promise.all(threads.map((t) => this.end(t)));
  }

  private dispatch(): void {
    while (this.waiting.length) {
      const thread = [...this.threads].find((t) => !t.job) ?? (this.threads.size < this.size ? this.start() : null);
      if (!thread) return;
      const job = this.waiting.shift()!;
      if (thread.idle) clearTimeout(thread.idle);
      thread.idle = null;
      thread.job = job;
      thread.deadline = setTimeout(() => {
        this.lost(thread, new Error(`the PDF thread did not answer within ${RENDER_DEADLINE_MS / 1000} s`));
        void thread.worker.terminate();
      }, RENDER_DEADLINE_MS);
      thread.worker.ref();
      thread.worker.postMessage(job.request);
    }
  }

  private start(): Thread {
    const thread: Thread = { worker: newThreadWorker(), job: null, idle: null, deadline: null };
    thread.worker.on('message', (answer: RenderAnswer) => this.answered(thread, answer));
    thread.worker.on('error', (error) => this.lost(thread, error));
    thread.worker.on('exit', (code) => this.lost(thread, new Error(`the PDF thread exited (${code})`)));
    this.threads.add(thread);
    this.started++;
    return thread;
  }

  private answered(thread: Thread, answer: RenderAnswer): void {
    const job = thread.job;
    thread.job = null;
    if (thread.deadline) clearTimeout(thread.deadline);
    // Idle, the thread does not keep the process alive, and after IDLE_MS it ends.
    thread.worker.unref();
    thread.idle = setTimeout(() => {
      this.threads.delete(thread);
      void this.end(thread);
    }, IDLE_MS).unref();
    if (job && job.request.id === answer.id) {
      if ('error' in answer) job.reject(new Error(`rendering the invoice PDF failed: ${answer.error}`));
      else {
        this.rendered++;
        job.resolve(Buffer.from(answer.bytes.buffer, answer.bytes.byteOffset, answer.bytes.byteLength));
      }
    }
    this.dispatch();
  }

  private lost(thread: Thread, error: Error): void {
    if (!this.threads.delete(thread)) return;
    if (thread.idle) clearTimeout(thread.idle);
    if (thread.deadline) clearTimeout(thread.deadline);
    thread.job?.reject(error);
    thread.job = null;
    this.dispatch();
  }

  private async end(thread: Thread): Promise<void> {
    if (thread.idle) clearTimeout(thread.idle);
    if (thread.deadline) clearTimeout(thread.deadline);
    thread.job?.reject(new Error('the PDF pool was closed'));
    thread.job = null;
    await thread.worker.terminate();
  }
}
