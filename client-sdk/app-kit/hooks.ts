import { createContext, useCallback, useContext, useEffect, useState } from 'react';
import type { Observable } from 'rxjs';
import type { CollectionName, DocumentOf } from '../../shared/index.js';
import type { MangoQuerySelector } from 'rxdb';
import { collectionOf, documentOf, type ReplicaDocument } from '../replica/database.js';
import type { Operation } from './api.js';
import type { Session } from './session.js';

/** The signed-in session, for every screen under the shell. */
export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in shell');
  return session;
}

/** The latest value of an observable; re-subscribes when `deps` change. */
export function useObservable<T>(make: () => Observable<T> | null, initial: T, deps: unknown[]): T {
  const [value, setValue] = useState<T>(initial);
  useEffect(() => {
    const source = make();
    if (!source) return setValue(initial);
    const subscription = source.subscribe(setValue);
    return () => subscription.unsubscribe();
    // `deps` stand for what `make` uses (a new observable every render would resubscribe each time).
  }, deps);
  return value;
}

/**
 * Live documents of a replica collection matching a Mango selector (RxDB re-runs the query on
 * every local write and every synced change), as plain objects. `null` until the first result.
 */
export function useDocs<C extends CollectionName>(collection: C, selector: MangoQuerySelector<ReplicaDocument<C>> | null, deps: unknown[]): DocumentOf<C>[] | null {
  const { client } = useSession();
  const [docs, setDocs] = useState<DocumentOf<C>[] | null>(null);
  useEffect(() => {
    const c = collectionOf(client.db, collection);
    if (!c || !selector) return setDocs(null);
    const subscription = c.find({ selector }).$.subscribe((found) => setDocs(found.map((d) => documentOf(collection, d.toJSON()))));
    return () => subscription.unsubscribe();
    // `deps` stand for the selector (a new object every render would re-run the query each time).
  }, [client, collection, ...deps]);
  return docs;
}

/** One live document by id; `undefined` while loading, `null` when the replica has none. */
export function useDoc<C extends CollectionName>(collection: C, id: string | null): DocumentOf<C> | null | undefined {
  const { client } = useSession();
  const [doc, setDoc] = useState<DocumentOf<C> | null | undefined>(undefined);
  useEffect(() => {
    const c = collectionOf(client.db, collection);
    if (!c || !id) return setDoc(null);
    const subscription = c.findOne(id).$.subscribe((d) => setDoc(d ? documentOf(collection, d.toJSON()) : null));
    return () => subscription.unsubscribe();
  }, [client, collection, id]);
  return doc;
}

export interface Loaded<T> {
  data: T | null;
  error: string | null;
  loading: boolean;
  reload(): void;
}

/** A GraphQL query's answer, fetched again when `deps` change or `reload()` is called. */
export function useGraphQL<R, V>(operation: Operation<R, V> | null, variables: V | undefined, deps: unknown[]): Loaded<R> {
  const { api } = useSession();
  const [round, setRound] = useState(0);
  const [state, setState] = useState<{ data: R | null; error: string | null; loading: boolean }>({ data: null, error: null, loading: true });
  useEffect(() => {
    if (!operation) return;
    let current = true;
    setState((s) => ({ ...s, loading: true }));
    api.graphql(operation, variables).then(
      (data) => current && setState({ data, error: null, loading: false }),
      (error: Error) => current && setState((s) => ({ data: s.data, error: error.message, loading: false })),
    );
    return () => {
      current = false;
    };
    // `deps` stand for the variables (a new object every render would fetch each time).
  }, [api, operation, round, ...deps]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { ...state, reload };
}

/** Runs an action and keeps its pending state and error message for the form that started it. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(async <R,>(action: () => Promise<R>): Promise<R | undefined> => {
    setBusy(true);
    setError(null);
    try {
      return await action();
    } catch (e) {
      setError((e as Error).message);
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, setError };
}

/**
 * Ids read in one task: a day of a 200-technician company's board names 2,600 customers, and reading
 * them at once was one task of 350 ms on the page (IndexedDB's gets and their results).
 */
const IDS_AT_A_TIME = 400;
/** How long changes to the parts are gathered into one answer. */
const CHANGES_GATHERED_MS = 50;

/** `ids` in the parts `useDocsByIds` reads them in (a view reading ahead asks the same parts: the same queries of RxDB's cache). */
export const idParts = (ids: readonly string[]) => Array.from({ length: Math.ceil(ids.length / IDS_AT_A_TIME) || 1 }, (_, i) => ids.slice(i * IDS_AT_A_TIME, (i + 1) * IDS_AT_A_TIME));

/**
 * Live documents of a replica collection by id (its primary index), as a map; null until the first
 * answer. Many ids are read a part at a time, each part in a task of its own. While the answer for
 * new ids is read, the previous one is kept if `scope` is unchanged (a live change that names
 * another document), and not if it changed (another day: none of the old answer belongs to it).
 */
export function useDocsByIds<C extends CollectionName>(collection: C, ids: readonly string[] | null, scope = ''): Map<string, DocumentOf<C>> | null {
  const { client } = useSession();
  const [answer, setAnswer] = useState<{ scope: string; docs: Map<string, DocumentOf<C>> } | null>(null);
  const key = ids?.join(',') ?? null;
  useEffect(() => {
    const c = collectionOf(client.db, collection);
    if (!c || !ids) return setAnswer(null);
    const parts: Map<string, DocumentOf<C>>[] = [];
    const all = idParts(ids);
    const count = all.length;
    const subscriptions: { unsubscribe(): void }[] = [];
    let open = true;
    // Once every part is in, the parts' changes are told together: a page of a first sync that
    // changes documents of every part is one new answer, not one per part.
    let telling: ReturnType<typeof setTimeout> | null = null;
    const tell = () => {
      telling = null;
      if (open && parts.filter(Boolean).length === count) setAnswer({ scope, docs: new Map(parts.flatMap((p) => [...p])) });
    };
    const read = (i: number) => {
      if (!open || i >= count) return;
      const part = all[i]!;
      subscriptions.push(
        c.findByIds(part).$.subscribe((found) => {
          const first = !parts[i];
          parts[i] = new Map([...found].map(([id, d]) => [id, documentOf(collection, d.toJSON())]));
          if (first && i === count - 1) tell();
          else if (!first) telling ??= setTimeout(tell, CHANGES_GATHERED_MS);
          if (first) setTimeout(() => read(i + 1), 0);
        }),
      );
    };
    read(0);
    return () => {
      open = false;
      if (telling) clearTimeout(telling);
      for (const s of subscriptions) s.unsubscribe();
    };
    // `key` stands for the ids (a new array every render would re-run the query each time).
  }, [client, collection, key, scope]);
  return answer?.scope === scope ? answer.docs : null;
}
