import { distinctUntilChanged, map, merge, type Subscription } from 'rxjs';
import type { StatusTracker } from '../status.js';
import { TabLeadership } from './leadership.js';
import type { Replicating } from './replicator.js';
import { TabChannel, type LeaderStatus, type TabMessage } from './tab-channel.js';

/**
 * This client's part among the tabs that share its replica (replication/README.md): it asks to
 * lead while its sync is started; while it leads, it tells the others its status, merges and
 * departures, and answers their requests; while it follows, it shows the leader's status and
 * sends its requests to whichever tab leads.
 */
export class Tabs {
  private readonly channel: TabChannel;
  private readonly leadership: TabLeadership;
  private joined = false;
  private replicating: Replicating | null = null;
  private telling: Subscription | null = null;
  /** This tab's `awaitInSync` calls waiting on the leader: each resolves true (in sync) or false (this tab leads now). */
  private readonly asks = new Map<string, { resolve(inSync: boolean): void; reject(error: Error): void }>();

  constructor(
    replica: string,
    private readonly tracker: StatusTracker,
    /** Called when this tab is granted the lead; answers what it replicates with (null: it could not start). */
    lead: () => Promise<Replicating | null>,
    /** Called when this tab gives the lead up (its sync stopped). */
    unlead: () => Promise<void>,
  ) {
    this.channel = new TabChannel(replica, (message) => this.receive(message));
    this.leadership = new TabLeadership(
      `pool-replica-sync:${replica}`,
      async () => {
        const replicating = await lead();
        if (replicating) this.leading(replicating);
      },
      async () => {
        this.following();
        await unlead();
      },
    );
  }

  /** This tab's sync started: it follows whoever leads, and leads once the tabs before it have left. */
  join(): void {
    this.joined = true;
    this.leadership.join();
    this.channel.post({ type: 'hello' });
  }

  /** This tab's sync stopped: it leads no more (the next tab does), and its requests to the leader end with `why`. */
  async leave(why: Error): Promise<void> {
    this.joined = false;
    await this.leadership.leave();
    for (const ask of this.asks.values()) ask.reject(why);
    this.asks.clear();
  }

  /** A local change was written here: the leader pushes it (it is in the shared pending changes already). */
  changed(): void {
    this.channel.post({ type: 'changed' });
  }

  /** Resolves true once the leader says everything is in sync, false as soon as this tab leads (then ask here). */
  askLeader(): Promise<boolean> {
    const id = crypto.randomUUID();
    return new Promise<boolean>((resolve, reject) => {
      this.asks.set(id, { resolve, reject });
      this.channel.post({ type: 'await-sync', id });
    });
  }

  close(): void {
    this.channel.close();
  }

  private leading(replicating: Replicating): void {
    this.replicating = replicating;
    const status$ = this.tracker.status$.pipe(
      map(({ state, online, lastSyncedAt, lastError, errorKind, signedOutReason }): LeaderStatus => ({ state, online, lastSyncedAt, lastError, errorKind, signedOutReason })),
      distinctUntilChanged((a, b) => JSON.stringify(a) === JSON.stringify(b)),
    );
    this.telling = merge(
      status$.pipe(map((status): TabMessage => ({ type: 'status', status }))),
      this.tracker.conflicts$.pipe(map((change): TabMessage => ({ type: 'conflict', change }))),
      this.tracker.departures$.pipe(map((departure): TabMessage => ({ type: 'departure', departure }))),
    ).subscribe((message) => this.channel.post(message));
    this.channel.post({ type: 'leader' });
    for (const [id, ask] of this.asks) {
      this.asks.delete(id);
      ask.resolve(false);
    }
  }

  /** Stops speaking for the replica before its sync stops: the next leader's status follows, not this one's "stopped". */
  private following(): void {
    this.telling?.unsubscribe();
    this.telling = null;
    this.replicating = null;
  }

  private receive(message: TabMessage): void {
    const leader = this.replicating;
    switch (message.type) {
      case 'hello':
        if (leader) this.channel.post({ type: 'status', status: leaderStatusOf(this.tracker) });
        return;
      case 'changed':
        leader?.pushSoon();
        return;
      case 'await-sync':
        leader?.awaitInSync().then(
          () => this.channel.post({ type: 'in-sync', id: message.id }),
          () => undefined, // this tab stopped leading: the asker asks the next leader
        );
        return;
      case 'leader':
        // Asked of a tab that has gone: ask the new one.
        for (const id of this.asks.keys()) this.channel.post({ type: 'await-sync', id });
        return;
      case 'in-sync': {
        const ask = this.asks.get(message.id);
        this.asks.delete(message.id);
        ask?.resolve(true);
        return;
      }
      case 'status':
        if (!leader && this.joined) this.tracker.mirror(message.status);
        return;
      case 'conflict':
        if (!leader) this.tracker.conflicts$.next(message.change);
        return;
      case 'departure':
        if (!leader) this.tracker.departures$.next(message.departure);
        return;
    }
  }
}

function leaderStatusOf(tracker: StatusTracker): LeaderStatus {
  const { state, online, lastSyncedAt, lastError, errorKind, signedOutReason } = tracker.status$.value;
  return { state, online, lastSyncedAt, lastError, errorKind, signedOutReason };
}
