import { useEffect, useState } from 'react';
import { parseCsv } from '../billing/csv.js';
import type { OfficeBulkProgressFragment } from '../graphql/operations.generated.js';

/**
 * The customers a run skipped, each with the reason (no rate, no billable work, inactive, not
 * ready for invoicing), read from the run's result file, however many there are: a customer left
 * out is told, never silent. The file's columns are shown as the server names them.
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
  const columns = Object.keys(rows[0] ?? {});
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
                {columns.map((c) => (
                  <th scope="col" key={c}>
                    {c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row, i) => (
                <tr key={i}>
                  {columns.map((c) => (
                    <td key={c}>{row[c]}</td>
                  ))}
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

/** The rows of skipped customers; a file that also lists the drafts made says which by an outcome or status column. */
function skippedOf(rows: Record<string, string>[]): Record<string, string>[] {
  const outcome = Object.keys(rows[0] ?? {}).find((c) => /^(outcome|status|result)$/i.test(c));
  return outcome ? rows.filter((r) => /skip/i.test(r[outcome] ?? '')) : rows;
}
