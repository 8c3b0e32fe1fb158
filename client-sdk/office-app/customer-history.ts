import { useEffect, useMemo, useState } from 'react';
import type { Service } from '../../shared/index.js';
import { useDocs, useSession } from '../app-kit/hooks.js';
import { OfficeCustomerHistoryDocument, type OfficeCustomerHistoryQuery } from './graphql/operations.generated.js';

/**
 * A customer's visits and quotes, newest first, whatever their age: the replica's (the office's
 * window, live) over the server's (everything, the newest 100 of each), each document once, the
 * replica's state where both have it. The server's answer is kept for the session, so going back
 * to a customer does not ask again; offline, the replica's alone.
 */
const FIRST = 100;
type ServerHistory = OfficeCustomerHistoryQuery;
type HistoryVisit = Pick<Service, 'id' | 'startTime' | 'endTime' | 'notes' | 'chemicalReadings'>;
type HistoryQuote = ServerHistory['infiniteQuotes']['edges'][number]['node'];

const cache = new Map<string, ServerHistory>();

export function useCustomerHistory(id: string): { visits: HistoryVisit[]; quotes: HistoryQuote[]; fromServer: boolean } {
  const { api } = useSession();
  const localVisits = useDocs('services', { customerId: id }, [id]);
  const localQuotes = useDocs('quotes', { customerId: id }, [id]);
  const [server, setServer] = useState<ServerHistory | null>(() => cache.get(id) ?? null);
  useEffect(() => {
    setServer(cache.get(id) ?? null);
    let current = true;
    api.graphql(OfficeCustomerHistoryDocument, { id, quotesOf: id, first: FIRST }).then(
      (answer) => {
        cache.set(id, answer);
        if (current) setServer(answer);
      },
      () => {}, // offline: the replica's history is what there is
    );
    return () => {
      current = false;
    };
  }, [api, id]);
  return useMemo(() => {
    const visits = new Map<string, HistoryVisit>();
    for (const edge of server?.infiniteServices.edges ?? []) visits.set(edge.node.id, edge.node as HistoryVisit);
    for (const v of localVisits ?? []) visits.set(v.id, v);
    const quotes = new Map<string, HistoryQuote>();
    for (const edge of server?.infiniteQuotes.edges ?? []) quotes.set(edge.node.id, edge.node);
    for (const q of localQuotes ?? []) quotes.set(q.id, q);
    return {
      visits: [...visits.values()].filter((v) => v.startTime).sort((a, b) => b.startTime!.localeCompare(a.startTime!)),
      quotes: [...quotes.values()],
      fromServer: server !== null,
    };
  }, [server, localVisits, localQuotes]);
}
