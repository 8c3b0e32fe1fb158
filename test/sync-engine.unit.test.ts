import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DocState, PullAnswer } from '../shared/index.js';
import { collectionByName, createReplicaDatabase, type ReplicaDatabase } from '../client-sdk/replica/database.js';
import { Checkpoints } from '../client-sdk/replication/checkpoints.js';
import { SyncEngine } from '../client-sdk/replication/engine.js';
import { SyncFailure, type NextMove } from '../client-sdk/replication/failure.js';
import type { PushAnswer } from '../client-sdk/replication/http.js';
import { LocalChanges } from '../client-sdk/replication/local-changes.js';
import { PendingChanges } from '../client-sdk/replication/pending-changes.js';
import { PENDING_CHANGES, type PendingChange } from '../client-sdk/replica/local-collections.js';
import type { SyncRemote } from '../client-sdk/replication/remote.js';
import { WriteLock } from '../client-sdk/replication/write-lock.js';
import { PieceSize } from '../client-sdk/replication/piece-size.js';
import { FirstSync } from '../client-sdk/replication/first-sync.js';
import { pullToEnd } from '../client-sdk/replication/puller.js';
import type { SyncContext } from '../client-sdk/replication/sync-context.js';
import type { RxCollection } from 'rxdb';

/**
 * The sync engine on its own: a real replica (RxDB's memory storage), a scripted server behind
 * the SyncRemote seam, and a fake clock. What follows a failure, when the next attempt comes, and
 * where checkpoints move, without a server or a network.
 */
/** Answer with this, fail with this, or wait for this promise (which settles as the test says). */
type Step = { answer: unknown } | { fail: unknown } | { wait: Promise<unknown> };

class ScriptedRemote implements SyncRemote {
  readonly calls: { kind: 'pull' | 'push'; at: number; checkpoint: number; rows?: unknown[] }[] = [];
  private readonly script: Step[] = [];

  /** The next calls fail or answer in this order; with the script spent, pulls answer an empty page at `head`. */
  then(...steps: Step[]): this {
    this.script.push(...steps);
    return this;
  }

  head = 0;

  async pull(_collection: string, checkpoint: number): Promise<PullAnswer> {
    this.calls.push({ kind: 'pull', at: Date.now(), checkpoint });
    return this.next({ documents: [], checkpoint: { seq: Math.max(checkpoint, this.head) } }) as Promise<PullAnswer>;
  }

  async push(_collection: string, rows: unknown[], checkpoint: number): Promise<PushAnswer> {
    this.calls.push({ kind: 'push', at: Date.now(), checkpoint, rows });
    return this.next({ answered: [], checkpoint: null }) as Promise<PushAnswer>;
  }

  private async next(otherwise: unknown): Promise<unknown> {
    const step = this.script.shift();
    if (!step) return otherwise;
    if ('fail' in step) throw step.fail;
    if ('wait' in step) return step.wait;
    return step.answer;
  }
}

const network = (presumedDead = false) => new SyncFailure('network', 'no answer', { presumedDead });

describe('the sync engine, driven through its remote with a fake clock', () => {
  let db: ReplicaDatabase;
  let remote: ScriptedRemote;
  let engine: SyncEngine;
  let changes: LocalChanges;
  let checkpoints: Checkpoints;
  const told: { failed: { error: unknown; move: NextMove }[]; succeeded: number } = { failed: [], succeeded: 0 };

  beforeEach(async () => {
    db = await createReplicaDatabase(`engine-${Math.random().toString(36).slice(2)}`, getRxStorageMemory() as never, ['customers']);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    vi.spyOn(Math, 'random').mockReturnValue(0.5); // no jitter: the backoff is exact
    remote = new ScriptedRemote();
    const outbox = new PendingChanges(db.collections[PENDING_CHANGES] as unknown as RxCollection<PendingChange>);
    const lock = new WriteLock();
    const collection = (name: string) => collectionByName(db, name)!;
    checkpoints = new Checkpoints(db);
    told.failed = [];
    told.succeeded = 0;
    engine = new SyncEngine(
      { collection, pending: outbox, checkpoints, lock, remote, pullBatchSize: 100, pushBatchSize: 10, writePieces: new PieceSize() },
      { collections: ['customers'], writable: new Set(['customers']), retryMs: 100 },
      { pushed: () => undefined, cycleSucceeded: () => told.succeeded++, failed: (error, move) => told.failed.push({ error, move }) },
    );
    changes = new LocalChanges(collection, outbox, lock, () => engine.pushSoon());
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    vi.useRealTimers();
    await engine.stop();
    await db.close();
  });

  const pulls = () => remote.calls.filter((c) => c.kind === 'pull');
  const gaps = (calls: { at: number }[]) => calls.slice(1).map((c, i) => c.at - calls[i]!.at);
  const customer = (id: string, lastName: string): DocState => ({ id, lastName, createdAt: new Date().toISOString(), updatedAt: new Date().toISOString() });

  it('backs off from retryMs, doubling, spaced from the start of each attempt', async () => {
    remote.then({ fail: network() }, { fail: network() }, { fail: network() }, { fail: network() });
    engine.start();
    await vi.advanceTimersByTimeAsync(100 + 200 + 400 + 800 + 10);
    expect(gaps(pulls())).toEqual([100, 200, 400, 800]);
    expect(told.failed.map((f) => f.move)).toEqual(Array(4).fill({ retry: 'backoff' }));
    expect(told.succeeded).toBe(1);
  });

  it('an attempt that waited out a deadline has waited already: the next comes at once after it', async () => {
    let release!: () => void;
    const slow = new Promise<never>((_, reject) => (release = () => reject(network())));
    remote.then({ fail: network() }, { wait: slow });
    engine.start();
    await vi.advanceTimersByTimeAsync(100); // second attempt starts, and hangs
    await vi.advanceTimersByTimeAsync(5_000);
    release(); // its deadline: 5 s after it started, longer than the 200 ms backoff
    await vi.advanceTimersByTimeAsync(1);
    expect(gaps(pulls())).toEqual([100, 5_000]);
  });

  it('a request abandoned on a dead connection is retried at once', async () => {
    remote.then({ fail: network() }, { fail: network(true) });
    engine.start();
    await vi.advanceTimersByTimeAsync(101);
    const [backoff, again] = gaps(pulls());
    expect(backoff).toBe(100);
    expect(again).toBeLessThanOrEqual(1); // a timer of 0 (Node's least is 1 ms), not a backoff
    expect(told.failed.at(-1)!.move).toEqual({ retry: 'now' });
  });

  it('429 waits what the server asked, though a local change wakes the loop meanwhile', async () => {
    remote.then({ fail: new SyncFailure('rate-limited', 'slow down', { retryAfterMs: 3_000 }) });
    engine.start();
    await vi.advanceTimersByTimeAsync(10);
    await changes.insert('customers', customer('c1', 'Waiting'), 'test');
    await vi.advanceTimersByTimeAsync(2_900);
    expect(remote.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(200);
    expect(remote.calls.map((c) => c.kind)).toEqual(['pull', 'push', 'pull']);
    expect(remote.calls[1]!.at - remote.calls[0]!.at).toBe(3_000);
  });

  it('401 stops sync: nothing more is tried, and whoever waits is told', async () => {
    remote.then({ fail: new SyncFailure('signed-out', 'revoked') });
    engine.start();
    const waiting = engine.synced();
    const outcome = waiting.then(() => 'resolved', (e: Error) => e.message);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(remote.calls).toHaveLength(1);
    expect(told.failed[0]!.move).toEqual({ stop: 'signed-out' });
    await engine.stop(new Error('signed out'));
    expect(await outcome).toBe('signed out');
  });

  it('anything but a SyncFailure (the replica, a bug) is shown and retried like an outage', async () => {
    remote.then({ fail: new TypeError('undefined is not a function') });
    engine.start();
    await vi.advanceTimersByTimeAsync(110);
    expect(told.failed[0]!.move).toEqual({ retry: 'backoff' });
    expect(pulls()).toHaveLength(2);
  });

  it('moves the checkpoint with pulled pages, and past its own writes only when the server says so and they were adopted', async () => {
    remote.then({ answer: { documents: [customer('c0', 'Pulled')], checkpoint: { seq: 7 } } as PullAnswer });
    engine.start();
    await vi.advanceTimersByTimeAsync(10);
    expect(await checkpoints.get('customers')).toBe(7);
    await changes.insert('customers', customer('c1', 'Mine'), 'test');
    remote.then({ answer: { answered: [{ ...customer('c1', 'Mine'), updatedAt: '2026-11-25T00:00:00.000Z' }], checkpoint: 9 } as PushAnswer });
    await vi.advanceTimersByTimeAsync(10);
    const push = remote.calls.find((c) => c.kind === 'push')!;
    expect(push.checkpoint).toBe(7);
    expect(await checkpoints.get('customers')).toBe(9);
    expect((await db.collections.customers!.findOne('c1').exec())!.toJSON().updatedAt).toBe('2026-11-25T00:00:00.000Z');
  });

  it('a checkpoint the push was answered but could not take is pulled to instead (the stream leaves those writes out)', async () => {
    engine.start();
    await vi.advanceTimersByTimeAsync(10);
    await checkpoints.set('customers', 7);
    let answer!: (value: PushAnswer) => void;
    remote.then({ wait: new Promise<PushAnswer>((resolve) => (answer = resolve)) });
    await changes.insert('customers', customer('c1', 'Mine'), 'test');
    await vi.advanceTimersByTimeAsync(10);
    const before = pulls().length;
    await checkpoints.set('customers', 8); // moved while the push was out: 9 cannot be taken
    answer({ answered: [], checkpoint: 9 });
    await vi.advanceTimersByTimeAsync(10);
    expect(await checkpoints.get('customers')).toBe(8);
    expect(pulls().slice(before).map((c) => c.checkpoint)).toEqual([8]);
  });

  it('a live batch that does not follow on from the checkpoint makes the engine pull', async () => {
    remote.head = 3;
    engine.start();
    await vi.advanceTimersByTimeAsync(10);
    expect(await checkpoints.get('customers')).toBe(3);
    const before = pulls().length;
    engine.received({ collection: 'customers', documents: [customer('c9', 'Later')], checkpoint: { seq: 12 }, since: { seq: 10 } });
    await vi.advanceTimersByTimeAsync(10);
    expect(pulls().length).toBe(before + 1); // a gap between 3 and 10: pulled, not applied
    expect(await db.collections.customers!.findOne('c9').exec()).toBeNull();
    engine.received({ collection: 'customers', documents: [customer('c8', 'Next')], checkpoint: { seq: 4 }, since: { seq: 3 } });
    await vi.advanceTimersByTimeAsync(10);
    expect(await checkpoints.get('customers')).toBe(4);
    expect(await db.collections.customers!.findOne('c8').exec()).not.toBeNull();
  });
});

describe("the outbox asked which of a pulled page's documents have local changes", () => {
  let db: ReplicaDatabase;
  let outbox: PendingChanges;
  beforeEach(async () => {
    db = await createReplicaDatabase(`outbox-${Math.random().toString(36).slice(2)}`, getRxStorageMemory() as never, ['customers', 'services']);
    outbox = new PendingChanges(db.collections[PENDING_CHANGES] as unknown as RxCollection<PendingChange>);
  });
  afterEach(() => db.close());

  const entry = (collection: string, id: string): PendingChange => ({
    key: `${collection}/${id}`,
    collectionName: collection,
    docId: id,
    base: null,
    changeId: `change-${id}`,
    sent: [],
    updatedAt: new Date().toISOString(),
    refused: null,
  });
  const page = (collection: string, count: number) => Array.from({ length: count }, (_, i) => `${collection}/d${i}`);

  it('answers exactly the entries among the keys, whether the collection holds none, some, or more than the page', async () => {
    expect((await outbox.among('customers', page('customers', 50))).size).toBe(0);
    // Some of the page, one of them refused, one outside the page, and another collection's entry with
    // the same document id.
    await outbox.save([entry('customers', 'd3'), { ...entry('customers', 'd7'), refused: 'too large' }, entry('customers', 'x1'), entry('services', 'd4')]);
    expect([...(await outbox.among('customers', page('customers', 50))).keys()].sort()).toEqual(['customers/d3', 'customers/d7']);
    // More entries than the page.
    await outbox.save(Array.from({ length: 60 }, (_, i) => entry('customers', `d${i}`)));
    const found = await outbox.among('customers', page('customers', 10));
    expect([...found.keys()].sort()).toEqual(page('customers', 10).sort());
    expect(found.get('customers/d7')!.changeId).toBe('change-d7');
  });
});

describe('a replica being filled (a first sync) writes pulled pages without reading them first', () => {
  let db: ReplicaDatabase;
  let pages: PullAnswer[];
  let ctx: SyncContext;
  beforeEach(async () => {
    db = await createReplicaDatabase(`filling-${Math.random().toString(36).slice(2)}`, getRxStorageMemory() as never, ['customers']);
    pages = [];
    const remote: SyncRemote = { pull: async () => pages.shift()!, push: async () => ({ answered: [], checkpoint: null }) };
    ctx = {
      collection: (name) => collectionByName(db, name)!,
      pending: new PendingChanges(db.collections[PENDING_CHANGES] as unknown as RxCollection<PendingChange>),
      checkpoints: new Checkpoints(db),
      lock: new WriteLock(),
      remote,
      pullBatchSize: 100,
      pushBatchSize: 10,
      writePieces: new PieceSize(),
      firstSync: await FirstSync.open(db, () => undefined),
    };
  });
  afterEach(() => db.close());

  const at = (minute: number) => new Date(Date.UTC(2026, 10, 28, 9, minute)).toISOString();
  const state = (id: string, lastName: string, minute: number, deleted = false): DocState => ({ id, lastName, createdAt: at(0), updatedAt: at(minute), _deleted: deleted });
  const held = async () => new Map((await ctx.collection('customers').find().exec()).map((d) => [d.id, d.toJSON() as Record<string, unknown>]));

  it('reads nothing for new documents, and writes over those it holds exactly as after a read: newer yes, older or the same no, tombstones only of held ones', async () => {
    const reads = vi.spyOn(ctx.collection('customers').storageInstance, 'findDocumentsById');
    pages.push({ documents: [state('a', 'Alder', 5), state('b', 'Birch', 5), state('c', 'Cedar', 5), state('f', 'Fir', 5)], checkpoint: { seq: 4 } });
    await pullToEnd(ctx, 'customers');
    expect(reads, 'a page of new live documents is written without a read of our own').not.toHaveBeenCalled();
    expect([...(await held()).keys()].sort()).toEqual(['a', 'b', 'c', 'f']);

    pages.push({
      documents: [state('a', 'Alder (older)', 1), state('b', 'Birch (newer)', 9), state('c', 'Cedar', 5), state('d', 'Dogwood', 9), state('e', 'Elm', 9, true), state('f', 'Fir', 9, true)],
      checkpoint: { seq: 10 },
    });
    await pullToEnd(ctx, 'customers');
    const after = await held();
    expect(after.get('a')!.lastName, 'an older state does not take a held document back').toBe('Alder');
    expect(after.get('b')!.lastName).toBe('Birch (newer)');
    expect(after.get('d')!.lastName).toBe('Dogwood');
    expect(after.has('e'), 'a tombstone of a document never held is not written').toBe(false);
    expect(after.has('f'), 'a held document deleted on the server goes').toBe(false);
    expect(await ctx.checkpoints.get('customers')).toBe(10);
    // Once the replica is complete, pulled pages are read first again (most of them are held then).
    await ctx.firstSync!.completed();
    reads.mockClear();
    pages.push({ documents: [state('b', 'Birch (newest)', 12)], checkpoint: { seq: 11 } });
    await pullToEnd(ctx, 'customers');
    expect(reads).toHaveBeenCalled();
    expect((await held()).get('b')!.lastName).toBe('Birch (newest)');
  });
});
