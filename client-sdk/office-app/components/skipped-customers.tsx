import { useEffect, useState } from 'react';
import { href } from '../../app-kit/route.js';
import { parseCsv } from '../billing/csv.js';
import type { OfficeBulkProgressFragment } from '../graphql/operations.generated.js';

/**
 * The customers a run skipped, each with the reason (no rate, no billable work, inactive, not
 * ready for invoicing), read from the run's result file, however many there are: a customer left
 * out is told, never silent.
 */
export function SkippedCustomers({ run }: { run: OfficeBulkProgressFragment }) {
  const [rows, setRows] = useState<Record<string, string>[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!run.resultUrl) return;
    let current = true;
    fetch(run.resultUrl)
      .then((r) => (r.ok ? r.text() : Promise.reject(new Error(`The run's result file could not be read (${r.status}).`))))
      .then((text) => current && setRows(skippedOf(parseCsv(text))))
      .catch((e: Error) => current && setError(e.message));
    return () => {
      current = false;
    };
  }, [run.resultUrl]);
  if (!run.resultUrl) return run.skipped ? <p>{run.skipped} customers skipped; the server kept no list of them.</p> : null;
  if (error) return <p role="alert" className="error">{error}</p>;
  if (!rows) return <p className="loading">Reading the customers skipped…</p>;
  return (
    <section aria-labelledby="skipped-title">
      <h3 id="skipped-title">
        Customers skipped: <span data-testid="skipped-count">{rows.length}</span>
      </h3>
      {rows.length > 0 && (
        <div className="grid-scroll short">
          <table className="list" data-testid="skipped">
            <thead>
              <tr>
                <th scope="col">Customer</th>
                <th scope="col">Why</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row, i) => (
                <tr key={row.customerId ?? i}>
                  <td>{row.customerId ? <a href={href('customer', row.customerId)}>{row.customerName || row.customerId}</a> : row.customerName}</td>
                  <td>{row.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p>
        <a href={run.resultUrl} download>
          Download the run's result (CSV)
        </a>
      </p>
    </section>
  );
}

/** The file lists every customer of the run, billed or skipped (its columns: customerId, customerName, outcome, reason, ...). */
const skippedOf = (rows: Record<string, string>[]) => rows.filter((r) => r.outcome === 'SKIPPED');
