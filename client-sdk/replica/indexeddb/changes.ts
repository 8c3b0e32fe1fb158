import { Subject } from 'rxjs';

/**
 * The change stream of each IndexedDB database open in this page, shared by every storage instance
 * of it: a write through one is told to all, as RxDB's memory storage does (the SDK opens each
 * collection once, but RxDB and its plugins are free to open one twice). Other pages (tabs) are
 * told only with RxDB's multiInstance, over a BroadcastChannel (storage.ts).
 */
const streams = new Map<string, { subject: Subject<unknown>; users: number }>();

export function openChanges<T>(databaseName: string): Subject<T> {
  let stream = streams.get(databaseName);
  if (!stream) streams.set(databaseName, (stream = { subject: new Subject(), users: 0 }));
  stream.users++;
  return stream.subject as Subject<T>;
}

/** One instance less; the last one closed completes the stream. */
export function closeChanges(databaseName: string): void {
  const stream = streams.get(databaseName);
  if (!stream || --stream.users > 0) return;
  streams.delete(databaseName);
  stream.subject.complete();
}
