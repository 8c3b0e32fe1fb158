import { BehaviorSubject } from 'rxjs';
import type { StatusTracker } from '../status.js';
import type { Replicating } from './replicator.js';
import { Tabs } from './tabs.js';

/**
 * Starts and stops the client's sync. A client alone replicates from `start()` to `stop()`.
 * Where tabs share the replica (`shared`: its name), a started client asks to lead, and
 * replicates only while it leads; until then it follows (tabs.ts): its local changes go to the
 * shared pending changes and the leader pushes them, and its status is the leader's.
 */
export class SyncControl {
  /** True while this client replicates the replica. */
  readonly leader$ = new BehaviorSubject(false);
  private started = false;
  /** What this client replicates with, once it has started (null: it could not start). */
  private term: Promise<Replicating | null> | null = null;
  private why: Error | undefined;
  private readonly tabs: Tabs | null;

  constructor(
    private readonly begin: () => Promise<Replicating>,
    private readonly tracker: StatusTracker,
    shared: string | null,
  ) {
    this.tabs = shared ? new Tabs(shared, tracker, () => this.lead(), () => this.unlead()) : null;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.why = undefined;
    this.tracker.started();
    if (this.tabs) this.tabs.join();
    else void this.lead();
  }

  /** Stops replicating (the next tab leads) or following; whoever waits for sync is told `why`. */
  async stop(why?: Error): Promise<void> {
    this.started = false;
    this.why = why;
    if (this.tabs) await this.tabs.leave(why ?? new Error('sync stopped'));
    else await this.unlead();
    this.tracker.stopped();
  }

  /** A local change was written: this client pushes it, or the leader does. */
  pushSoon(): void {
    if (this.term) void this.term.then((replicating) => replicating?.pushSoon());
    else this.tabs?.changed();
  }

  /** A photo was queued here: upload it now if this client replicates (a leader watches the shared queue). */
  kickUploads(): void {
    void this.term?.then((replicating) => replicating?.kickUploads());
  }

  /** Resolves when everything is in sync, as this client or the leader sees it; a handover asks the next leader. */
  async awaitInSync(): Promise<void> {
    for (;;) {
      if (!this.started) throw new Error('sync is not started');
      if (this.term) {
        const replicating = await this.term;
        if (!replicating) throw new Error('sync could not start');
        return replicating.awaitInSync();
      }
      if (await this.tabs!.askLeader()) return;
    }
  }

  async close(): Promise<void> {
    await this.stop();
    this.tabs?.close();
    this.leader$.complete();
  }

  private lead(): Promise<Replicating | null> {
    const term = this.begin().then(
      (replicating) => {
        this.leader$.next(true);
        return replicating;
      },
      (error: unknown) => {
        this.tracker.failed(error);
        return null;
      },
    );
    this.term = term;
    return term;
  }

  private async unlead(): Promise<void> {
    const term = this.term;
    this.term = null;
    if (this.leader$.value) this.leader$.next(false);
    await (await term)?.stop(this.why);
  }
}
