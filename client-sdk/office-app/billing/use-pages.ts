import { useCallback, useEffect, useState } from 'react';
import type { Operation } from '../../app-kit/api.js';
import { useSession } from '../../app-kit/hooks.js';

/** A page of a cursor connection, as the invoice lists answer. */
interface Page<N> {
  edges: { node: N }[];
  pageInfo: { hasNextPage: boolean; endCursor?: string | null };
}

export interface Pages<N> {
  rows: N[] | null;
  error: string | null;
  /** Asks the next page; null when there is none. */
  more: (() => void) | null;
  /** Reads the list again from its start (after a change made here). */
  reload(): void;
}

/**
 * A list read a page at a time (a company's thousands of invoices are not read at once): the first
 * page when `variables` change or on reload, the next ones on `more()`, appended.
 */
export function usePages<R, V extends { first: number; after?: string | null }, N>(operation: Operation<R, V>, variables: Omit<V, 'after'>, pick: (answer: R) => Page<N>, deps: unknown[]): Pages<N> {
  const { api } = useSession();
  const [round, setRound] = useState(0);
  const [state, setState] = useState<{ rows: N[] | null; next: string | null; error: string | null }>({ rows: null, next: null, error: null });
  const read = (after: string | null, previous: N[]) =>
    api.graphql(operation, { ...variables, after } as V).then((answer) => {
      const page = pick(answer);
      return { rows: [...previous, ...page.edges.map((e) => e.node)], next: page.pageInfo.hasNextPage ? (page.pageInfo.endCursor ?? null) : null, error: null };
    });
  useEffect(() => {
    let current = true;
    read(null, []).then(
      (s) => current && setState(s),
      (e: Error) => current && setState((s) => ({ ...s, error: e.message })),
    );
    return () => {
      current = false;
    };
    // `deps` stand for the variables.
  }, [api, round, ...deps]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  const more = state.next
    ? () =>
        void read(state.next, state.rows ?? []).then(setState, (e: Error) => setState((s) => ({ ...s, error: e.message })))
    : null;
  return { rows: state.rows, error: state.error, more, reload };
}
