/**
 * Serialises every write to the replica's synced collections and their pending changes: the app's local
 * changes and the sync engine's writes of server states. So a server state is never written over
 * a local change made a moment earlier, and an pending change always describes the stored document.
 */
export class WriteLock {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
