import type { Departure } from './departures.js';
import type { MergedChange, SyncStatus } from '../status.js';

/**
 * What the tabs sharing a replica tell each other (replication/README.md), over a BroadcastChannel
 * of the replica's name. Only what a tab cannot read from the shared replica itself goes here:
 * the leader's view of the network, and requests to the leader. Documents, pending changes and
 * the first sync's progress reach every tab through the replica (RxDB's multiInstance).
 */
/** The part of the status only the replicating tab knows. */
export type LeaderStatus = Pick<SyncStatus, 'state' | 'online' | 'lastSyncedAt' | 'lastError' | 'errorKind' | 'signedOutReason'>;

export type TabMessage =
  /** A tab began to replicate: ask it what was asked of the tab before. */
  | { type: 'leader' }
  /** The leader's status, whenever it changes, and in answer to `hello`. */
  | { type: 'status'; status: LeaderStatus }
  /** A tab started its sync: the leader answers with its status. */
  | { type: 'hello' }
  /** A follower wrote a local change to the replica: the leader pushes soon. */
  | { type: 'changed' }
  /** A follower waits for everything to be in sync (`awaitInSync`); the leader answers `in-sync`. */
  | { type: 'await-sync'; id: string }
  | { type: 'in-sync'; id: string }
  /** The leader's push was answered with a merge (`conflicts$`), or a row left the scope (`departures$`). */
  | { type: 'conflict'; change: MergedChange }
  | { type: 'departure'; departure: Departure };

export class TabChannel {
  private readonly channel: BroadcastChannel;

  constructor(replica: string, receive: (message: TabMessage) => void) {
    this.channel = new BroadcastChannel(`pool-replica-tabs:${replica}`);
    this.channel.onmessage = (event: MessageEvent<TabMessage>) => receive(event.data);
  }

  post(message: TabMessage): void {
    this.channel.postMessage(message);
  }

  close(): void {
    this.channel.close();
  }
}
