import { useEffect, useState, type FormEvent } from 'react';
import type { ApiError } from '../../app-kit/api.js';
import { Alert } from '../../app-kit/components/alert.js';
import { Field } from '../../app-kit/components/field.js';
import { useAction, useSession } from '../../app-kit/hooks.js';
import { lastMonth } from '../billing/format.js';
import { OfficeBulkOperationDocument, OfficeGenerateInvoicesDocument, type OfficeBulkProgressFragment } from '../graphql/operations.generated.js';
import { SkippedCustomers } from './skipped-customers.js';

/**
 * The month's run: a period (two days, both included), started on the server as a bulk operation
 * that makes one draft per customer; its progress bar follows the server's counts until it ends,
 * then the customers it skipped are listed with the reason (never silently), and the drafts are
 * read again.
 */
const FINAL = new Set(['SUCCEEDED', 'FAILED', 'CANCELLED', 'PARTIAL']);
const POLL_MS = 500;
/** The run being followed, kept for the tab: leaving the screen and coming back follows it on. */
const KEPT = 'pool-office-billing-run';

export function BillingRun({ onFinished }: { onFinished: () => void }) {
  const { api } = useSession();
  const [range, setRange] = useState(lastMonth);
  const [run, setRun] = useState<OfficeBulkProgressFragment | null>(null);
  const start = useAction();

  // A run kept by this tab that the server no longer answers for (another sign-in) is forgotten;
  // offline, it is kept for the next visit.
  useEffect(() => {
    const kept = sessionStorage.getItem(KEPT);
    if (kept) api.graphql(OfficeBulkOperationDocument, { id: kept }).then((r) => setRun(r.bulkOperation), (e: ApiError) => e.code !== 'OFFLINE' && sessionStorage.removeItem(KEPT));
  }, [api]);
  // Asks the server for the run's counts until it ends; a failed ask (offline) is tried again.
  useEffect(() => {
    if (!run) return;
    if (FINAL.has(run.status)) return onFinished();
    const timer = setTimeout(() => {
      api.graphql(OfficeBulkOperationDocument, { id: run.id }).then(
        (r) => setRun(r.bulkOperation),
        () => setRun({ ...run }),
      );
    }, POLL_MS);
    return () => clearTimeout(timer);
  }, [api, run]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    // One key per submission: a retried request (a lost answer) answers the same run, not a second one.
    const input = { periodStart: range.start, periodEnd: range.end, idempotencyKey: crypto.randomUUID() };
    const started = await start.run(() => api.graphql(OfficeGenerateInvoicesDocument, { input }));
    if (!started) return;
    sessionStorage.setItem(KEPT, started.generateInvoices.id);
    setRun(started.generateInvoices);
  }

  const running = run !== null && !FINAL.has(run.status);
  return (
    <section aria-labelledby="run-title">
      <h2 id="run-title">Run the month</h2>
      <form className="card-form inline" onSubmit={submit} aria-labelledby="run-title">
        <Field label="From">
          <input type="date" required value={range.start} onChange={(e) => setRange({ ...range, start: e.target.value })} />
        </Field>
        <Field label="To (included)">
          <input type="date" required value={range.end} onChange={(e) => setRange({ ...range, end: e.target.value })} />
        </Field>
        <button type="submit" disabled={start.busy || running}>
          Make the drafts
        </button>
        <Alert message={start.error} />
      </form>
      <p className="hint">Each customer gets one draft holding the work of the period not billed yet; running it again bills nothing twice.</p>
      {run && <RunProgress run={run} />}
    </section>
  );
}

function RunProgress({ run }: { run: OfficeBulkProgressFragment }) {
  const done = FINAL.has(run.status);
  const percent = run.total ? Math.round((run.processed / run.total) * 100) : done ? 100 : 0;
  return (
    <div className="progress">
      <progress max={100} value={percent} aria-label="Progress of the run" data-testid="run-progress" />
      <p role="status" data-testid="run-status">
        {percent}% · {run.status.toLowerCase()} · {run.processed} of {run.total} customers: {run.succeeded} drafts made or updated, {run.skipped} skipped, {run.failed} failed
      </p>
      {run.errors.length > 0 && (
        <ul className="errors">
          {run.errors.map((e) => (
            <li key={`${e.index}-${e.id}`}>
              Customer {e.id ?? (e.index ?? 0) + 1}: {e.message}
            </li>
          ))}
        </ul>
      )}
      {done && <SkippedCustomers run={run} />}
    </div>
  );
}
