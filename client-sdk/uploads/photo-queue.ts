import type { RxCollection } from 'rxdb';
import type { QueuedPhoto } from '../replica/local-collections.js';
import { BehaviorSubject } from 'rxjs';
import { Call, expectedWithin } from '../replication/call.js';
import { failureOfAnswer, SyncFailure } from '../replication/failure.js';
import { endpointHeaders, type SyncEndpoint } from '../replication/http.js';

/**
 * Uploads wait for an answer, not forever: an upload that has not been answered within
 * `stallMs` plus the time its bytes take on a slow link (32 KB/s) is taken for dead and
 * tried again, each such time of the same photo with twice the allowance (a link slower than the
 * floor still gets its photo through). fetch cannot see a request body leave (browsers stream
 * request bodies only over HTTP/2, and the socket's buffers hide it anyway), so the answer is the
 * one sign of progress. Most dead uploads end sooner: the connection watch abandons one that has
 * shown no life since a network failure as soon as a newer request gets through, and it is
 * retried at once.
 */
export const DEFAULT_UPLOAD_STALL_MS = 10_000;

/**
 * What became of one upload: stored; refused for good (kept, with the reason, out of the queue);
 * or to be tried again (now, after the backoff, or after the time the server asked for), where
 * `others` says whether the photos after it are worth trying in this pass (not when the network or
 * the server is in trouble: they would only wait too).
 */
type Outcome = 'done' | 'stopped' | { failure: string } | { again: 'now' | 'backoff' | number; others: boolean };

/**
 * Uploads the photos taken offline that wait in a local collection of the replica (so the queue survives a
 * restart), until the server has confirmed them. Uploads are idempotent by photo id: a response
 * lost on the way makes the retry answer 200 with the stored photo instead of storing it twice.
 */
export class PhotoUploader {
  readonly pending$ = new BehaviorSubject(0);
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running = false;
  private busy: Promise<void> | null = null;
  private again = false;
  private failures = 0;
  /** Uploads of a photo that ran out of time, by photo id: each doubles the next one's allowance. */
  private readonly timeouts = new Map<string, number>();

  constructor(
    private readonly queue: RxCollection<QueuedPhoto>,
    private readonly endpoint: SyncEndpoint,
    private readonly report: { succeeded(): void; failed(failure: SyncFailure): void },
    private readonly retryMs = 1000,
    /** The least time an upload waits for its answer (see above). */
    private readonly stallMs = DEFAULT_UPLOAD_STALL_MS,
    /**
     * Whether the photo's visit is deleted in the replica (by the device, the office, or the
     * server refusing it): its photos then have nowhere to go and leave the queue.
     */
    private readonly parentDeleted: (parent: QueuedPhoto['parent'], id: string) => Promise<boolean> = async () => false,
  ) {
    queue.count({ selector: { failure: null } }).$.subscribe((n) => this.pending$.next(n));
  }

  start(): void {
    this.running = true;
    this.kick();
  }

  /** Stops uploading; resolves once the upload in flight (aborted by the client's close) has ended. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.busy?.catch(() => undefined);
  }

  /** Tries the queue now (after a write, or when the network is back); during a pass, once more after it. */
  kick(): void {
    if (!this.running) return;
    if (this.busy) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.busy = this.drain().finally(() => {
      this.busy = null;
      if (this.again) {
        this.again = false;
        this.kick();
      }
    });
  }

  /** Resolves once every photo that can be uploaded has been, or `stop()` was called. */
  async idle(): Promise<void> {
    while (this.running && (this.pending$.value > 0 || this.busy)) {
      await (this.busy ?? new Promise((r) => setTimeout(r, 50)));
    }
  }

  private async drain(): Promise<void> {
    const waiting = await this.queue.find({ selector: { failure: null }, sort: [{ queuedAt: 'asc' }] }).exec();
    let wait: number | null = null;
    for (const doc of waiting) {
      if (!this.running) return;
      const photo = doc.toJSON() as QueuedPhoto;
      const outcome = (await this.parentDeleted(photo.parent, photo.parentId)) ? 'done' : await this.upload(photo);
      if (outcome === 'stopped') return; // signed out, or the app must update: the client stops sync; nothing here will work
      if (outcome === 'done') await doc.remove();
      else if ('failure' in outcome) await doc.incrementalPatch({ failure: outcome.failure });
      else {
        if (outcome.again === 'now') this.again = true;
        else wait = Math.max(wait ?? 0, outcome.again === 'backoff' ? this.backoff() : outcome.again);
        if (!outcome.others) break;
      }
    }
    if (wait !== null && this.running) this.timer = setTimeout(() => this.kick(), wait);
    else this.failures = 0;
  }

  private backoff(): number {
    return Math.min(30_000, this.retryMs * 2 ** Math.min(this.failures++, 5)) * (0.75 + Math.random() / 2);
  }

  private async upload(photo: QueuedPhoto): Promise<Outcome> {
    const form = new FormData();
    form.append('id', photo.id);
    if (photo.caption) form.append('caption', photo.caption);
    const bytes = base64ToBytes(photo.data);
    form.append('file', new Blob([bytes], { type: photo.contentType }), `${photo.id}`);
    const expectedMs = expectedWithin(this.stallMs, bytes.length);
    const call = new Call(this.endpoint, `photo upload ${photo.id}`, expectedMs);
    const allowanceMs = expectedMs * 2 ** Math.min(this.timeouts.get(photo.id) ?? 0, 5);
    call.deadline(allowanceMs, `no answer within ${Math.round(allowanceMs)} ms`);
    try {
      const res = await (this.endpoint.fetch ?? fetch)(`${this.endpoint.baseUrl}/${photo.parent}/${encodeURIComponent(photo.parentId)}/photos`, {
        method: 'POST',
        headers: endpointHeaders(this.endpoint),
        body: form,
        signal: call.signal,
      });
      call.answered();
      const text = await call.until(res.text()).catch(() => '');
      this.timeouts.delete(photo.id);
      if (res.ok) {
        this.report.succeeded();
        return 'done';
      }
      return this.outcomeOf(failureOfAnswer(`photo upload ${photo.id}`, res.status, res.headers, text));
    } catch (error) {
      const failure = call.failure(error);
      if (!(failure instanceof SyncFailure)) return { again: 'backoff', others: false }; // the client is closing
      if (failure.kind === 'network' && !failure.details.presumedDead) this.timeouts.set(photo.id, (this.timeouts.get(photo.id) ?? 0) + 1);
      return this.outcomeOf(failure);
    } finally {
      call.end();
    }
  }

  /** What an upload's failure means for the photo; every kind has one answer. */
  private outcomeOf(failure: SyncFailure): Outcome {
    this.report.failed(failure);
    switch (failure.kind) {
      case 'refused':
        // 404: the visit has not reached the server yet. Anything else (a file too large, of a
        // type the server does not take, a visit this token may not change) will not change.
        return failure.details.status === 404 ? { again: 'backoff', others: true } : { failure: failure.message };
      case 'rate-limited':
        return { again: failure.details.retryAfterMs ?? 5000, others: false };
      case 'signed-out':
      case 'update-required':
        return 'stopped';
      case 'network':
        return { again: failure.details.presumedDead ? 'now' : 'backoff', others: false };
      case 'server':
      case 'protocol':
        return { again: 'backoff', others: false };
    }
  }
}

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function base64ToBytes(base64: string): Uint8Array<ArrayBuffer> {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
