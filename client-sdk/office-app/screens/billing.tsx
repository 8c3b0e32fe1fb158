import { usePages } from '../billing/use-pages.js';
import { BillingNav } from '../components/billing-nav.js';
import { BillingRun } from '../components/billing-run.js';
import { DraftInvoices } from '../components/draft-invoices.js';
import { OfficeDraftsDocument } from '../graphql/operations.generated.js';

/**
 * Billing: run the month (drafts made on the server, with progress and the customers skipped),
 * review the drafts line by line, finalize them, and send what was finalized.
 */
const PAGE = 50;

export function BillingScreen() {
  const drafts = usePages(OfficeDraftsDocument, { first: PAGE }, (a) => a.infiniteInvoices, []);
  return (
    <section aria-labelledby="billing-title">
      <h1 id="billing-title">Billing</h1>
      <BillingNav current="billing" />
      <BillingRun onFinished={drafts.reload} />
      <DraftInvoices drafts={drafts} />
    </section>
  );
}
