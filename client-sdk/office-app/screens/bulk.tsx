import { Alert } from '../../app-kit/components/alert.js';
import { Field } from '../../app-kit/components/field.js';
import { useEffect, useState, type FormEvent } from 'react';
import { dateTime } from '../../app-kit/format.js';
import { useAction, useSession } from '../../app-kit/hooks.js';

/**
 * Bulk operations: export customers, visits or stock, or email or text a selection of customers;
 * the progress bar follows the server's counts until the operation ends, and an export's CSV can
 * then be downloaded.
 */
interface Operation {
  id: string;
  kind: string;
  status: 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED' | 'PARTIAL';
  total: number;
  processed: number;
  succeeded: number;
  failed: number;
  skipped: number;
  errors: { index: number; id: string | null; code: string; message: string }[];
  resultUrl: string | null;
  createdAt: string;
}

const KINDS = {
  CUSTOMERS_EXPORT: 'Export customers (CSV)',
  CUSTOMERS_EMAIL: 'Email customers',
  CUSTOMERS_TEXT: 'Text customers',
  SERVICES_EXPORT: 'Export visits (CSV)',
  INVENTORY_EXPORT: 'Export inventory (CSV)',
} as const;
type Kind = keyof typeof KINDS;

const FINAL = new Set(['SUCCEEDED', 'FAILED', 'CANCELLED', 'PARTIAL']);
const POLL_MS = 500;

export function BulkScreen() {
  const { api } = useSession();
  const [recent, setRecent] = useState<Operation[]>([]);
  const [watching, setWatching] = useState<Operation | null>(null);
  const refresh = () => api.rest<{ operations: Operation[] }>('GET', '/bulk-operations?first=10').then((r) => setRecent(r.operations), () => {});
  useEffect(() => void refresh(), [api]);
  // Polls the operation being watched until it ends.
  useEffect(() => {
    if (!watching || FINAL.has(watching.status)) return void refresh();
    const timer = setTimeout(() => {
      api.rest<Operation>('GET', `/bulk-operations/${watching.id}`).then(setWatching, () => setWatching({ ...watching }));
    }, POLL_MS);
    return () => clearTimeout(timer);
  }, [api, watching]);
  return (
    <section aria-labelledby="bulk-title">
      <h1 id="bulk-title">Bulk operations</h1>
      <StartForm onStarted={setWatching} />
      {watching && <Progress operation={watching} />}
      <h2>Recent operations</h2>
      <table className="list">
        <thead>
          <tr>
            <th scope="col">Started</th>
            <th scope="col">What</th>
            <th scope="col">Status</th>
            <th scope="col">Done</th>
            <th scope="col">Result</th>
          </tr>
        </thead>
        <tbody>
          {recent.map((op) => (
            <tr key={op.id}>
              <td>{dateTime(op.createdAt)}</td>
              <td>{KINDS[op.kind as Kind] ?? op.kind}</td>
              <td>{op.status.toLowerCase()}</td>
              <td>
                {op.processed} / {op.total}
              </td>
              <td>{op.resultUrl ? <a href={op.resultUrl}>Download CSV</a> : op.failed ? `${op.failed} failed` : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function StartForm({ onStarted }: { onStarted: (op: Operation) => void }) {
  const { api } = useSession();
  const [kind, setKind] = useState<Kind>('CUSTOMERS_EXPORT');
  const [search, setSearch] = useState('');
  const [tag, setTag] = useState('');
  const [subject, setSubject] = useState('');
  const [body, setBody] = useState('Hi {{firstName}}, ');
  const start = useAction();
  const forCustomers = kind.startsWith('CUSTOMERS_');

  async function submit(event: FormEvent) {
    event.preventDefault();
    const selector = { search: search.trim() || null, filters: tag.trim() ? { tags: { has: tag.trim() } } : null };
    const payload =
      kind === 'CUSTOMERS_EXPORT' ? { selection: { selector } }
      : kind === 'CUSTOMERS_EMAIL' ? { selection: { selector }, subject, body }
      : kind === 'CUSTOMERS_TEXT' ? { selection: { selector }, body }
      : {};
    // One key per submission: a retried POST (a lost answer) does not start a second operation.
    const key = crypto.randomUUID();
    const started = await start.run(() => api.rest<Operation>('POST', '/bulk-operations', { kind, ...payload }, { 'idempotency-key': key }));
    if (started) onStarted(started);
  }

  return (
    <form className="card-form wide" onSubmit={submit} aria-labelledby="start-title">
      <h2 id="start-title">Start an operation</h2>
      <Field label="Operation">
        <select value={kind} onChange={(e) => setKind(e.target.value as Kind)}>
          {Object.entries(KINDS).map(([k, label]) => (
            <option key={k} value={k}>
              {label}
            </option>
          ))}
        </select>
      </Field>
      {forCustomers && (
        <fieldset>
          <legend>Which customers (empty: all)</legend>
          <Field label="Search">
            <input value={search} onChange={(e) => setSearch(e.target.value)} placeholder="Name, street, city, phone…" />
          </Field>
          <Field label="With tag">
            <input value={tag} onChange={(e) => setTag(e.target.value)} placeholder="e.g. weekly" />
          </Field>
        </fieldset>
      )}
      {kind === 'CUSTOMERS_EMAIL' && (
        <Field label="Subject">
          <input required value={subject} onChange={(e) => setSubject(e.target.value)} />
        </Field>
      )}
      {(kind === 'CUSTOMERS_EMAIL' || kind === 'CUSTOMERS_TEXT') && (
        <Field label="Message (customer fields in braces, e.g. {{firstName}})">
          <textarea required value={body} onChange={(e) => setBody(e.target.value)} rows={4} />
        </Field>
      )}
      <button type="submit" disabled={start.busy}>
        Start
      </button>
      <Alert message={start.error} />
    </form>
  );
}

function Progress({ operation: op }: { operation: Operation }) {
  const percent = op.total ? Math.round((op.processed / op.total) * 100) : FINAL.has(op.status) ? 100 : 0;
  return (
    <section className="progress" aria-labelledby="progress-title">
      <h2 id="progress-title">{KINDS[op.kind as Kind] ?? op.kind}</h2>
      <progress max={100} value={percent} aria-label="Progress" data-testid="bulk-progress" />
      <p role="status" data-testid="bulk-status">
        {percent}% · {op.status.toLowerCase()} · {op.succeeded} done, {op.failed} failed, {op.skipped} skipped of {op.total}
      </p>
      {op.resultUrl && (
        <p>
          <a href={op.resultUrl} download data-testid="bulk-download">
            Download the CSV
          </a>
        </p>
      )}
      {op.errors.length > 0 && (
        <ul className="errors">
          {op.errors.map((e) => (
            <li key={`${e.index}-${e.id}`}>
              Item {e.index + 1}: {e.message}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
