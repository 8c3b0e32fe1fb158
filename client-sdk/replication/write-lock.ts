/**
 * Serialises every write to the replica's synced collections and their pending changes: the app's local
 * changes and the sync engine's writes of server states. So a server state is never written over
 * a local change made a moment earlier, and an pending change always describes the stored document.
 *
 * Where tabs share the replica (replication/README.md) the lock is a Web Lock of that name, held
 * across every tab of the browser profile: a follower tab's edit and the leader's pull then take
 * turns as one tab's would (about 0.2 ms a turn in Chromium). The browser gives it back when a
 * tab holding it is closed.
 */
export class WriteLock {
  private tail: Promise<unknown> = Promise.resolve();

  /** `sharedName`: the Web Lock every tab of the replica takes; none: a lock of this client alone. */
  constructor(private readonly sharedName?: string) {}

  run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.sharedName) return navigator.locks.request(this.sharedName, fn) as Promise<T>;
    const result = this.tail.then(fn);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
