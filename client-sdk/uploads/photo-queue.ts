import type { RxCollection } from 'rxdb';
import { BehaviorSubject } from 'rxjs';
import { deadlineSignal, describeFailure, untilAborted, type SyncEndpoint } from '../replication/http.js';

/**
 * Photos taken offline wait here, in a local collection of the replica (so the queue survives a
 * restart), until the server has confirmed them. Uploads are idempotent by photo id: a response
 * lost on the way makes the retry answer 200 with the stored photo instead of storing it twice.
 */
export const PHOTO_QUEUE = 'photoUploads';

export const photoQueueSchema = {
  version: 0,
  title: 'photo upload queue',
  primaryKey: 'id',
  type: 'object',
  properties: {
    id: { type: 'string', maxLength: 128 },
    parent: { type: 'string', enum: ['services', 'quotes'] },
    parentId: { type: 'string' },
    caption: { type: ['string', 'null'] },
    contentType: { type: 'string' },
    data: { type: 'string', description: 'the bytes, base64' },
    queuedAt: { type: 'string' },
    /** Set when the server refused the file for good (wrong type, too large). */
    failure: { type: ['string', 'null'] },
  },
  required: ['id', 'parent', 'parentId', 'contentType', 'data', 'queuedAt'],
  additionalProperties: false,
} as const;

export interface QueuedPhoto {
  id: string;
  parent: 'services' | 'quotes';
  parentId: string;
  caption: string | null;
  contentType: string;
  data: string;
  queuedAt: string;
  failure: string | null;
}

export class PhotoUploader {
  readonly pending$ = new BehaviorSubject(0);
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running = false;
  private busy: Promise<void> | null = null;
  private failures = 0;

  constructor(
    private readonly queue: RxCollection<QueuedPhoto>,
    private readonly endpoint: SyncEndpoint,
    private readonly onResult: (ok: boolean, error?: string) => void,
    private readonly retryMs = 1000,
    /** Deadline of one upload, answer included. */
    private readonly timeoutMs = 120_000,
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

  /** Tries the queue now (after a write, or when the network is back). */
  kick(): void {
    if (!this.running || this.busy) return;
    this.busy = this.drain().finally(() => {
      this.busy = null;
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
    let retry = false;
    for (const doc of waiting) {
      if (!this.running) return;
      const photo = doc.toJSON() as QueuedPhoto;
      const outcome = (await this.parentDeleted(photo.parent, photo.parentId)) ? 'done' : await this.upload(photo);
      if (outcome === 'done') await doc.remove();
      else if (outcome === 'later') retry = true;
      else await doc.incrementalPatch({ failure: outcome.failure });
    }
    if (retry && this.running) {
      const wait = Math.min(30_000, this.retryMs * 2 ** Math.min(this.failures++, 5));
      this.timer = setTimeout(() => this.kick(), wait);
    } else {
      this.failures = 0;
    }
  }

  private async upload(photo: QueuedPhoto): Promise<'done' | 'later' | { failure: string }> {
    const form = new FormData();
    form.append('id', photo.id);
    if (photo.caption) form.append('caption', photo.caption);
    const bytes = base64ToBytes(photo.data);
    form.append('file', new Blob([bytes], { type: photo.contentType }), `${photo.id}`);
    const signal = deadlineSignal(this.endpoint, this.timeoutMs);
    try {
      const res = await (this.endpoint.fetch ?? fetch)(`${this.endpoint.baseUrl}/${photo.parent}/${encodeURIComponent(photo.parentId)}/photos`, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.endpoint.token}` },
        body: form,
        signal,
      });
      await untilAborted(res.arrayBuffer(), signal).catch(() => undefined);
      if (res.ok) {
        this.onResult(true);
        return 'done';
      }
      // 404: the visit has not reached the server yet; 5xx and 429: try again later.
      if (res.status === 404 || res.status === 429 || res.status >= 500 || res.status === 401) return 'later';
      return { failure: `upload refused with HTTP ${res.status}` };
    } catch (error) {
      this.onResult(false, `photo upload failed: ${describeFailure(error, this.timeoutMs).message}`);
      return 'later';
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
