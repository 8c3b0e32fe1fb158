import { useState } from 'react';
import { Alert } from '../../app-kit/components/alert.js';
import { money } from '../../app-kit/format.js';
import { useAction, useSession } from '../../app-kit/hooks.js';
import { href } from '../../app-kit/route.js';
import { OfficeSendInvoiceDocument } from '../graphql/operations.generated.js';

/** An invoice just finalized, as the finalize answers it. */
export interface Finalized {
  id: string;
  number: string | null;
  total: number;
  currency: string;
  sentAt: string | null;
}

/**
 * What was just finalized, numbered: each can be sent now (its email to the customer, with its PDF,
 * queued in the outbox), or all of them; one the server already sent (the organization sends
 * invoices automatically) says so.
 */
export function FinalizedInvoices({ invoices }: { invoices: Finalized[] }) {
  const { api } = useSession();
  const [sent, setSent] = useState<Record<string, string>>({});
  const send = useAction();
  if (!invoices.length) return null;
  const sentAt = (i: Finalized) => sent[i.id] ?? i.sentAt;
  const unsent = invoices.filter((i) => !sentAt(i));
  const sendThese = (list: Finalized[]) =>
    send.run(async () => {
      // One after another: each is a message in the outbox, and a failure stops at the invoice it names.
      for (const invoice of list) {
        const answer = await api.graphql(OfficeSendInvoiceDocument, { id: invoice.id });
        setSent((s) => ({ ...s, [invoice.id]: answer.sendInvoice.sentAt ?? new Date().toISOString() }));
      }
    });
  return (
    <section aria-labelledby="finalized-title">
      <h3 id="finalized-title">Just finalized</h3>
      <ul className="finalized" data-testid="finalized">
        {invoices.map((i) => (
          <li key={i.id}>
            <a href={href('invoice', i.id)}>{i.number}</a> {money(i.total, i.currency)}{' '}
            {sentAt(i) ? (
              <span className="badge done">sent to the outbox</span>
            ) : (
              <button type="button" disabled={send.busy} onClick={() => void sendThese([i])}>
                Send {i.number}
              </button>
            )}
          </li>
        ))}
      </ul>
      {unsent.length > 1 && (
        <button type="button" disabled={send.busy} onClick={() => void sendThese(unsent)}>
          Send all {unsent.length}
        </button>
      )}
      <Alert message={send.error} />
    </section>
  );
}
