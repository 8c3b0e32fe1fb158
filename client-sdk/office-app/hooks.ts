import { createContext, useCallback, useContext, useEffect, useState } from 'react';
import type { Observable } from 'rxjs';
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

type MangoSelector = Record<string, unknown>;

/**
 * Live documents of a replica collection matching a Mango selector (RxDB re-runs the query on
 * every local write and every synced change), as plain objects. `null` until the first result.
 */
export function useDocs<T>(collection: string, selector: MangoSelector | null, deps: unknown[]): T[] | null {
  const { client } = useSession();
  const [docs, setDocs] = useState<T[] | null>(null);
  useEffect(() => {
    const c = client.db.collections[collection];
    if (!c || !selector) return setDocs(null);
    const subscription = c.find({ selector }).$.subscribe((found) => setDocs(found.map((d) => d.toJSON() as T)));
    return () => subscription.unsubscribe();
    // `deps` stand for the selector (a new object every render would re-run the query each time).
  }, [client, collection, ...deps]);
  return docs;
}

/** One live document by id; `undefined` while loading, `null` when the replica has none. */
export function useDoc<T>(collection: string, id: string | null): T | null | undefined {
  const { client } = useSession();
  const [doc, setDoc] = useState<T | null | undefined>(undefined);
  useEffect(() => {
    const c = client.db.collections[collection];
    if (!c || !id) return setDoc(null);
    const subscription = c.findOne(id).$.subscribe((d) => setDoc(d ? (d.toJSON() as T) : null));
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
export function useGraphQL<T>(query: string | null, variables: Record<string, unknown> | undefined, deps: unknown[]): Loaded<T> {
  const { api } = useSession();
  const [round, setRound] = useState(0);
  const [state, setState] = useState<{ data: T | null; error: string | null; loading: boolean }>({ data: null, error: null, loading: true });
  useEffect(() => {
    if (!query) return;
    let current = true;
    setState((s) => ({ ...s, loading: true }));
    api.graphql<T>(query, variables).then(
      (data) => current && setState({ data, error: null, loading: false }),
      (error: Error) => current && setState((s) => ({ data: s.data, error: error.message, loading: false })),
    );
    return () => {
      current = false;
    };
    // `deps` stand for the variables (a new object every render would fetch each time).
  }, [api, query, round, ...deps]);
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
