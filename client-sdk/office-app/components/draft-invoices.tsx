import { useState } from 'react';
import { Alert } from '../../app-kit/components/alert.js';
import { customerName, money } from '../../app-kit/format.js';
import { useAction, useSession } from '../../app-kit/hooks.js';
import type { Pages } from '../billing/use-pages.js';
import { href } from '../../app-kit/route.js';
import { period } from '../billing/format.js';
import { OfficeFinalizeInvoicesDocument, type OfficeDraftsQuery } from '../graphql/operations.generated.js';
import { InvoiceLines } from './invoice-lines.js';
import { FinalizedInvoices, type Finalized } from './finalized-invoices.js';

/**
 * The drafts to review: each with its customer, period, total and, opened, its lines and where each
 * comes from; finalize the ones ticked, or all of them (the server numbers them without gaps and
 * issues them today). What was just finalized is listed below, to send.
 */
type Draft = OfficeDraftsQuery['infiniteInvoices']['edges'][number]['node'];


export function DraftInvoices({ drafts }: { drafts: Pages<Draft> }) {
  const { api } = useSession();
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [open, setOpen] = useState<string | null>(null);
  const [finalized, setFinalized] = useState<Finalized[]>([]);
  const finalize = useAction();
  const list = drafts.rows ?? [];
  const sum = list.reduce((s, d) => s + d.total, 0);
  const currency = list[0]?.currency;
  const toggle = (id: string) => setSelected((s) => new Set(s.has(id) ? [...s].filter((x) => x !== id) : [...s, id]));

  async function finalizeThese(input: { ids?: string[]; all?: boolean }) {
    // "All" takes the oldest drafts a request at a time (the server caps one request's share so it
    // answers in time): asked again until a request finds none left, or one is refused.
    for (;;) {
      const answer = await finalize.run(() => api.graphql(OfficeFinalizeInvoicesDocument, { input }));
      if (!answer) break;
      setFinalized((f) => [...answer.finalizeInvoices, ...f]);
      if (!input.all || answer.finalizeInvoices.length === 0) break;
    }
    setSelected(new Set());
    drafts.reload();
  }

  return (
    <section aria-labelledby="drafts-title">
      <h2 id="drafts-title">Drafts</h2>
      <p role="status" data-testid="drafts-summary">
        {drafts.rows ? draftCount(list.length, Boolean(drafts.more), money(sum, currency)) : (drafts.error ?? 'Loading the drafts…')}
      </p>
      <div className="actions" role="group" aria-label="Finalize">
        <button type="button" disabled={finalize.busy || selected.size === 0} onClick={() => void finalizeThese({ ids: [...selected] })}>
          Finalize selected ({selected.size})
        </button>
        <button type="button" disabled={finalize.busy || list.length === 0} onClick={() => void finalizeThese({ all: true })}>
          Finalize all drafts
        </button>
      </div>
      <Alert message={finalize.error} />
      <FinalizedInvoices invoices={finalized} />
      <table className="list drafts">
        <thead>
          <tr>
            <th scope="col">Finalize</th>
            <th scope="col">Customer</th>
            <th scope="col">Period</th>
            <th scope="col">Lines</th>
            <th scope="col">Total</th>
          </tr>
        </thead>
        <tbody>
          {list.map((d) => (
            <DraftRow key={d.id} draft={d} selected={selected.has(d.id)} onToggle={() => toggle(d.id)} open={open === d.id} onOpen={() => setOpen(open === d.id ? null : d.id)} />
          ))}
        </tbody>
      </table>
      <Alert message={drafts.rows && drafts.error} />
      {drafts.more && (
        <button type="button" onClick={drafts.more}>
          Show more drafts
        </button>
      )}
    </section>
  );
}

function DraftRow({ draft: d, selected, onToggle, open, onOpen }: { draft: Draft; selected: boolean; onToggle: () => void; open: boolean; onOpen: () => void }) {
  const name = customerName(d.customer);
  return (
    <>
      <tr data-draft={d.id}>
        <td>
          <input type="checkbox" checked={selected} onChange={onToggle} aria-label={`Finalize the draft for ${name}`} />
        </td>
        <td>
          <button type="button" className="link" aria-expanded={open} onClick={onOpen}>
            {name}
          </button>{' '}
          <a href={href('invoice', d.id)} className="hint">
            open
          </a>
        </td>
        <td>{period(d.periodStart, d.periodEnd)}</td>
        <td className="number">{d.lines.length}</td>
        <td className="number">{money(d.total, d.currency)}</td>
      </tr>
      {open && (
        <tr className="draft-lines">
          <td colSpan={5}>
            <InvoiceLines lines={d.lines} currency={d.currency} totals={d} />
          </td>
        </tr>
      )}
    </>
  );
}

/** "3 drafts, $720.00"; with more pages to read, what the ones read so far hold. */
function draftCount(shown: number, more: boolean, sum: string): string {
  if (!shown) return 'No drafts.';
  return more ? `${shown} drafts shown (more to read), ${sum} for those` : `${shown} draft${shown === 1 ? '' : 's'}, ${sum}`;
}
