import { audienceOf, SCOPED_COLLECTIONS, type LiveEvent } from '../../../shared/index.js';
import type { Database } from '../../storage/db.js';
import { feedHead, readFeed } from '../../storage/table-feed.js';
import { lastPositions, readScopeEntries, scopeLiveHead } from '../../storage/scope-entries.js';
import { REVOCATIONS_CHANNEL, revokedAmong } from '../../storage/tokens.js';
import type { OperationContext } from '../context.js';
import { tokenOwnersOf } from '../token-owners.js';
import { SYNC_COLLECTIONS, type SyncCollection } from './collections.js';
import { toDocument, type Doc } from './doc.js';
import { LiveTakers } from './live-takers.js';
import { OwnWrites } from './own-writes.js';

/**
 * Live fan-out: one LISTEN per server process on 'pool_changes' (the change-feed trigger notifies
 * "<org> <table>" at commit, from any process). On a notification the feed reads the new rows of
 * that table once, and hands each subscriber of the organization the ones it may see. A subscriber
 * is first told RESYNC (the client then pulls from its own checkpoint), so nothing committed
 * before it subscribed is missed either.
 *
 * Every batch names the feed position it follows (`since`) as well as the one it reaches
 * (`checkpoint`): a client whose checkpoint is behind `since` knows it missed something (it
 * subscribed while a write was in flight, or the LISTEN connection dropped) and pulls; one at or
 * past it may apply the batch directly.
 *
 * A device whose scope of a collection is narrower than the whole (shared/sync/scopes.ts) reads a
 * feed of its scope's (`scope_rows`: a technician's own, or the office's one shared feed): the
 * feed also reads the collection's new entries of every audience once, and hands each audience's
 * subscribers their own, encoded once per audience. Their batch's `since` is the position of that
 * audience's previous entry: a device that holds everything of its feed up to there may apply it.
 *
 * The feed also LISTENs on 'pool_revocations': a revoked token's streams end at once, on every
 * process (and after a lost LISTEN connection, every open stream's token is checked again), and
 * the process's kept token owners forget it (token-owners.ts).
 */
export type { LiveEvent } from '../../../shared/index.js';

/** Receives an event's JSON (made once per batch and shared by every subscriber it suits). */
export type LiveSender = (json: string) => void;

interface Subscriber {
  ctx: OperationContext;
  collections: Set<string>;
  send: LiveSender;
  /** Ends the subscriber's stream (its token was revoked). */
  end: () => void;
  /** Per collection, the feed position up to which this stream's device pushed everything itself (own-writes.ts). */
  ownUpTo: OwnWrites;
}

interface OrgFeed {
  subscribers: Set<Subscriber>;
  /** The same subscribers by collection and audience. */
  takers: LiveTakers<Subscriber>;
  /**
   * Highest _seq read per table, kept while some subscriber holds the whole collection. Absent when
   * none does: the table is then not read at all (an office device's visits come from its scope's
   * feed), and its head is read again when such a subscriber arrives.
   */
  lastSeq: Map<string, number>;
  /** Highest scope feed position read per table (scoped collections), over every audience. */
  lastScopeSeq: Map<string, number>;
  /**
   * Per scoped table, each audience's last entry position (0: none) as far as read: a batch's
   * `since`. Learned from the database once per audience, then kept from the entries the feed reads
   * (it reads every audience's), which saves a query per change.
   */
  audiencePositions: Map<string, Map<string, number>>;
  /** Tables with a read running, and whether another notification came during it. */
  reading: Map<string, boolean>;
}

export interface LiveFanoutSettings {
  /** Announced in RESYNC, so a client can tell a silent stream from a dead one. */
  heartbeatMs?: number;
}

const byTable = new Map(SYNC_COLLECTIONS.map((c) => [c.resource.table, c]));
/** The collections some scope narrows (their devices read feeds of their own). */
const SCOPED = SYNC_COLLECTIONS.filter((c) => (SCOPED_COLLECTIONS as readonly string[]).includes(c.name));
const BATCH = 1000;

export class LiveFanout {
  private readonly orgs = new Map<string, OrgFeed>();
  /** Open subscribers by their token and stream id (its device names the id in its pushes). */
  private readonly byStream = new Map<string, Subscriber>();
  private readonly resync: string;
  private stopListening: (() => Promise<void>)[] = [];
  /** Times the change LISTEN was re-established after its connection dropped (for /metrics). */
  private reconnects = 0;

  constructor(
    private readonly db: Database,
    settings: LiveFanoutSettings,
    private readonly onError: (error: unknown) => void = () => {},
  ) {
    const event: LiveEvent = { type: 'RESYNC', ...(settings.heartbeatMs ? { heartbeatMs: settings.heartbeatMs } : {}) };
    this.resync = JSON.stringify(event);
  }

  async start(): Promise<void> {
    this.stopListening.push(
      await this.db.listen(
        'pool_changes',
        (payload) => {
          const [orgId, table] = payload.split(' ');
          if (orgId && table) this.changed(orgId, table);
        },
        () => {
          this.reconnects += 1;
          this.catchUp();
        },
      ),
      await this.listenForRevocations(),
    );
  }

  /**
   * A revoked token's streams end, and this process's kept token owners (token-owners.ts) forget
   * it; while the connection is lost they keep nothing, and after it every stream's token is checked.
   */
  private async listenForRevocations(): Promise<() => Promise<void>> {
    const owners = tokenOwnersOf(this.db);
    const stop = await this.db.listen(
      REVOCATIONS_CHANNEL,
      (tokenId) => {
        owners.revoked(tokenId);
        this.endStreamsOf(new Set([tokenId]));
      },
      () => {
        owners.listening();
        void this.recheckTokens();
      },
      () => owners.deaf(),
    );
    owners.listening();
    return async () => {
      owners.deaf();
      await stop();
    };
  }

  async stop(): Promise<void> {
    await Promise.all(this.stopListening.map((stop) => stop()));
    this.stopListening = [];
    for (const org of this.orgs.values()) org.subscribers.clear();
    this.orgs.clear();
    this.byStream.clear();
  }

  /** Open subscriptions and LISTEN reconnects so far, for monitoring. */
  stats(): { subscribers: number; reconnects: number } {
    let subscribers = 0;
    for (const org of this.orgs.values()) subscribers += org.subscribers.size;
    return { subscribers, reconnects: this.reconnects };
  }

  /**
   * Adds a subscriber; it is sent RESYNC at once. Returns the function that removes it. `streamId`:
   * the id the stream was answered with, which its device names in its pushes (`ownWrites`).
   */
  async subscribe(ctx: OperationContext, collections: readonly string[], send: LiveSender, end: () => void = () => {}, streamId?: string): Promise<() => void> {
    const orgId = ctx.viewer.orgId;
    const subscriber: Subscriber = { ctx, collections: new Set(collections), send, end, ownUpTo: new OwnWrites() };
    // The heads are read with no subscriber added yet; the organization's feed may end (its last
    // subscriber gone) while they are read, so they are checked again until none is missing.
    let org = this.orgs.get(orgId);
    for (let missing = missingHeads(org, subscriber); missing.whole.length || missing.scoped.length; missing = missingHeads(org, subscriber)) {
      const heads = await Promise.all(missing.whole.map(async (c) => [c.resource.table, await feedHead(this.db, c.table, orgId)] as const));
      const scopeHeads = await Promise.all(missing.scoped.map(async (c) => [c.resource.table, await scopeLiveHead(this.db, orgId, c.name)] as const));
      org = this.orgs.get(orgId) ?? { subscribers: new Set(), takers: new LiveTakers(), lastSeq: new Map(), lastScopeSeq: new Map(), audiencePositions: new Map(), reading: new Map() };
      for (const [table, seq] of heads) if (!org.lastSeq.has(table)) org.lastSeq.set(table, seq);
      for (const [table, seq] of scopeHeads) if (!org.lastScopeSeq.has(table)) org.lastScopeSeq.set(table, seq);
      this.orgs.set(orgId, org);
    }
    org = org!;
    org.subscribers.add(subscriber);
    for (const name of subscriber.collections) org.takers.add(name, audienceOf(ctx.viewer, name), subscriber);
    const key = streamId ? streamKey(ctx, streamId) : null;
    if (key) this.byStream.set(key, subscriber);
    send(this.resync);
    return () => {
      org!.subscribers.delete(subscriber);
      for (const name of subscriber.collections) org!.takers.remove(name, audienceOf(ctx.viewer, name), subscriber);
      if (key && this.byStream.get(key) === subscriber) this.byStream.delete(key);
      // The last to take a collection whole: its position is not kept up any more.
      for (const c of SYNC_COLLECTIONS) if (holdsWhole(subscriber, c) && !org!.takers.of(c.name, null).length) org!.lastSeq.delete(c.resource.table);
      if (org!.subscribers.size === 0 && this.orgs.get(orgId) === org) this.orgs.delete(orgId);
    };
  }

  /**
   * A push by the device of stream `streamId` was answered with `Sync-Checkpoint: seq` for
   * `collection`: its stream is not sent that collection's entries up to `seq` (own-writes.ts says
   * why that is safe). Streams are looked up under the pushing token, so another token's are
   * never touched; an unknown stream (on another process, closed, or not yet subscribed) is
   * nothing to do: it is sent everything, as before.
   */
  ownWrites(ctx: OperationContext, streamId: string, collection: string, seq: number): void {
    this.byStream.get(streamKey(ctx, streamId))?.ownUpTo.pushed(collection, seq);
  }

  private endStreamsOf(tokenIds: Set<string>): void {
    for (const org of this.orgs.values()) {
      for (const s of org.subscribers) if (tokenIds.has(s.ctx.viewer.tokenId)) s.end();
    }
  }

  /** After a lost LISTEN connection a revocation may have been missed: ask the database. */
  private async recheckTokens(): Promise<void> {
    const tokens = [...this.orgs.values()].flatMap((org) => [...org.subscribers].map((s) => s.ctx.viewer));
    try {
      this.endStreamsOf(await revokedAmong(this.db, tokens));
    } catch (error) {
      this.onError(error);
    }
  }

  /** After a lost LISTEN connection: every subscriber re-pulls. */
  private catchUp(): void {
    for (const org of this.orgs.values()) for (const s of org.subscribers) s.send(this.resync);
  }

  private changed(orgId: string, table: string): void {
    const org = this.orgs.get(orgId);
    const collection = byTable.get(table);
    if (!org || !collection) return;
    if (org.reading.has(table)) {
      org.reading.set(table, true);
      return;
    }
    org.reading.set(table, false);
    void this.read(orgId, org, collection);
  }

  private async read(orgId: string, org: OrgFeed, collection: SyncCollection): Promise<void> {
    const table = collection.resource.table;
    try {
      for (;;) {
        const more = (await this.readTable(orgId, org, collection)) || (await this.readScopes(orgId, org, collection));
        if (more) continue;
        if (org.reading.get(table)) {
          org.reading.set(table, false);
          continue;
        }
        break;
      }
    } catch (error) {
      this.onError(error);
    } finally {
      org.reading.delete(table);
    }
  }

  /** The table's new rows to every subscriber that holds the whole collection; true when a full batch was read (more may follow). */
  private async readTable(orgId: string, org: OrgFeed, collection: SyncCollection): Promise<boolean> {
    const table = collection.resource.table;
    const takers = org.takers.of(collection.name, null);
    const since = org.lastSeq.get(table);
    // Nobody to read for: forgotten, so a later taker starts from the head (see subscribe).
    if (!takers.length || since === undefined) {
      org.lastSeq.delete(table);
      return false;
    }
    const rows = await readFeed<Doc>(this.db, collection.table, orgId, since, BATCH);
    if (!rows.length) return false;
    org.lastSeq.set(table, rows.at(-1)!.seq);
    const documents = rows.map((r) => toDocument(r.record, r.deleted));
    const checkpoint = { seq: rows.at(-1)!.seq };
    const batch = (from: number, after: number) => JSON.stringify({ type: 'changes', collection: collection.name, documents: documents.slice(from), checkpoint, since: { seq: after } } satisfies LiveEvent);
    const json = batch(0, since);
    const seqs = rows.map((r) => r.seq);
    sendInTurn(takers, (subscriber) => subscriber.ownUpTo.send(subscriber.send, collection.name, seqs, json, batch));
    return rows.length === BATCH;
  }

  /**
   * New entries of a scoped collection, each audience's to its own subscribers (a technician's
   * devices, or every office device), encoded once per audience; true when a full batch was read.
   */
  private async readScopes(orgId: string, org: OrgFeed, collection: SyncCollection): Promise<boolean> {
    const table = collection.resource.table;
    if (!org.lastScopeSeq.has(table)) return false;
    const since = org.lastScopeSeq.get(table)!;
    const entries = await readScopeEntries(this.db, collection.table, orgId, collection.name, since, BATCH);
    if (!entries.length) return false;
    const checkpoint = entries.at(-1)!.seq;
    const documents = new Map<string, string[]>();
    const seqs = new Map<string, number[]>();
    for (const e of entries) {
      if (!org.takers.of(collection.name, e.audience).length) continue;
      appendTo(documents, e.audience, e.doc);
      appendTo(seqs, e.audience, e.seq);
    }
    const positions = await this.audiencePositions(orgId, org, collection, [...documents.keys()], since);
    // Moved on only now: had that read failed, the next notification reads these entries again.
    org.lastScopeSeq.set(table, checkpoint);
    const previous = new Map([...documents.keys()].map((audience) => [audience, positions.get(audience)!]));
    for (const e of entries) positions.set(e.audience, e.seq);
    for (const [audience, docs] of documents) {
      // The documents are JSON already (written by the database): joined, not parsed and encoded again.
      const batch = (from: number, after: number) =>
        `{"type":"changes","collection":${JSON.stringify(collection.name)},"documents":[${docs.slice(from).join(',')}],"checkpoint":{"seq":${checkpoint}},"since":{"seq":${after}}}`;
      const json = batch(0, previous.get(audience)!);
      sendInTurn(org.takers.of(collection.name, audience), (subscriber) => subscriber.ownUpTo.send(subscriber.send, collection.name, seqs.get(audience)!, json, batch));
    }
    return entries.length === BATCH;
  }

  /** The table's audience positions, with those of `audiences` not yet known read (at or before `since`). */
  private async audiencePositions(orgId: string, org: OrgFeed, collection: SyncCollection, audiences: string[], since: number): Promise<Map<string, number>> {
    const table = collection.resource.table;
    const positions = org.audiencePositions.get(table) ?? new Map<string, number>();
    org.audiencePositions.set(table, positions);
    const unknown = audiences.filter((a) => !positions.has(a));
    if (unknown.length) {
      const found = await lastPositions(this.db, orgId, collection.name, unknown, since);
      for (const audience of unknown) positions.set(audience, found.get(audience) ?? 0);
    }
    return positions;
  }
}

/** Whether a subscriber takes a collection's changes whole (not through a scope's feed). */
function holdsWhole(s: Subscriber, collection: SyncCollection): boolean {
  return s.collections.has(collection.name) && !audienceOf(s.ctx.viewer, collection.name);
}

/** The collections a subscriber takes whole whose head is not known yet, and scoped ones when the organization has no feed. */
function missingHeads(org: OrgFeed | undefined, s: Subscriber): { whole: SyncCollection[]; scoped: SyncCollection[] } {
  return {
    whole: SYNC_COLLECTIONS.filter((c) => holdsWhole(s, c) && !org?.lastSeq.has(c.resource.table)),
    scoped: SCOPED.filter((c) => !org?.lastScopeSeq.has(c.resource.table)),
  };
}

/** A stream's id is the device's to choose: it names a stream only among its token's. */
const streamKey = (ctx: OperationContext, streamId: string) => `${ctx.viewer.tokenId} ${streamId}`;

/**
 * Sends an event to every subscriber, starting from a random one. Writing to a thousand sockets
 * takes the kernel 10-20 ms; in a fixed order (the order they subscribed) the same devices would
 * always wait for all the others.
 */
function sendInTurn(subscribers: readonly Subscriber[], deliver: (subscriber: Subscriber) => void): void {
  const start = Math.floor(Math.random() * subscribers.length);
  for (let i = 0; i < subscribers.length; i++) deliver(subscribers[(start + i) % subscribers.length]!);
}

/** Adds to a list in place: a copy per addition makes grouping quadratic in the list's length. */
function appendTo<T>(lists: Map<string, T[]>, key: string, value: T): void {
  const list = lists.get(key);
  if (list) list.push(value);
  else lists.set(key, [value]);
}
