import { Loading } from '../../app-kit/components/loading.js';
import { useState } from 'react';
import { dateTime } from '../../app-kit/format.js';
import { OfficeConflictsDocument } from '../graphql/operations.generated.js';
import { useGraphQL } from '../../app-kit/hooks.js';
import { href } from '../../app-kit/route.js';

/**
 * What sync decided for people: every value a merge overwrote (which value was kept, which lost,
 * by which rule, pushed by whom), and the documents it could not accept (the quarantine).
 * "Mark all reviewed" moves the header's count on; the log itself stays.
 */
const SEEN_KEY = 'pool-office-conflicts-seen';

export function conflictsSeenSince(): string | null {
  return localStorage.getItem(SEEN_KEY);
}

/** Where a logged record opens, and what a person calls it. */
const SCREEN_OF: Record<string, string> = { services: 'visit', customers: 'customer', quotes: 'quote' };
const NAME_OF: Record<string, string> = { services: 'Visit', customers: 'Customer', quotes: 'Quote', inventoryItems: 'Item', inventoryLocations: 'Location', appointments: 'Appointment', stockMovements: 'Stock movement' };

export function ConflictsScreen() {
  const [seen, setSeen] = useState(conflictsSeenSince());
  const log = useGraphQL(OfficeConflictsDocument, undefined, []);
  const userName = (id: string | null) => log.data?.users.find((u) => u.id === id)?.name ?? 'unknown user';
  const markReviewed = () => {
    const now = new Date().toISOString();
    localStorage.setItem(SEEN_KEY, now);
    setSeen(now);
  };
  if (!log.data) return <Loading title="Sync conflicts" error={log.error} />;
  const conflicts = log.data.syncConflicts.edges.map((e) => e.node);
  const quarantine = log.data.syncQuarantine.edges.map((e) => e.node);
  return (
    <section aria-labelledby="conflicts-title">
      <div className="toolbar">
        <h1 id="conflicts-title">Sync conflicts</h1>
        <button type="button" onClick={log.reload}>
          Refresh
        </button>
        <button type="button" onClick={markReviewed}>
          Mark all reviewed
        </button>
      </div>
      <p>When a device and the office (or two people) change the same field before syncing, the server keeps one value by the field's owner and logs the other here.</p>
      {conflicts.length === 0 ? (
        <p>No conflicts.</p>
      ) : (
        <table className="list conflicts">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Record</th>
              <th scope="col">Field</th>
              <th scope="col">Kept</th>
              <th scope="col">Overwritten</th>
              <th scope="col">Why</th>
              <th scope="col">Pushed by</th>
            </tr>
          </thead>
          <tbody>
            {conflicts.map((c) => (
              <tr key={c.id} className={!seen || c.createdAt > seen ? 'new' : undefined}>
                <td>{dateTime(c.createdAt)}</td>
                <td>{SCREEN_OF[c.collection] ? <a href={href(SCREEN_OF[c.collection]!, c.documentId)}>{NAME_OF[c.collection]}</a> : (NAME_OF[c.collection] ?? c.collection)}</td>
                <td>{c.field}</td>
                <td>
                  <Value value={c.keptValue} />
                </td>
                <td className="lost">
                  <Value value={c.lostValue} />
                </td>
                <td>{c.rule}</td>
                <td>{userName(c.pushedBy)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Quarantine</h2>
      <p>Documents a device sent that could not be accepted; the device was told to drop them, and nothing typed is lost: it is kept here.</p>
      {quarantine.length === 0 ? (
        <p>Nothing in quarantine.</p>
      ) : (
        <table className="list">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Collection</th>
              <th scope="col">Reason</th>
              <th scope="col">Document as sent</th>
            </tr>
          </thead>
          <tbody>
            {quarantine.map((q) => (
              <tr key={q.id}>
                <td>{dateTime(q.createdAt)}</td>
                <td>{NAME_OF[q.collection] ?? q.collection}</td>
                <td>{q.reason}</td>
                <td>
                  <details>
                    <summary>{q.documentId}</summary>
                    <pre>{JSON.stringify(q.document, null, 2)}</pre>
                  </details>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** A logged value as a person reads it: text as is, nothing as "empty", the rest as JSON. */
function Value({ value }: { value: unknown }) {
  if (value === null || value === undefined || value === '') return <em>empty</em>;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return <>{String(value)}</>;
  return <code>{JSON.stringify(value)}</code>;
}
