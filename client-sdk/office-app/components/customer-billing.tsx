import { money } from '../../app-kit/format.js';
import { href } from '../../app-kit/route.js';
import { useCurrency } from '../billing/format.js';
import { useBillingCustomer } from '../billing/use-customer.js';

/** On a customer's page: what they owe and their credit (from the server), their statement and a payment. */
export function CustomerBilling({ id }: { id: string }) {
  const { customer, error } = useBillingCustomer(id);
  const currency = useCurrency();
  return (
    <p data-testid="customer-billing">
      {customer ? `Balance due ${money(customer.balanceDue, currency)} · credit ${money(customer.creditBalance, currency)}` : error ? 'Balance not available offline.' : 'Reading the balance…'}
      <br />
      <a href={href('statement', id)}>Statement</a> · <a href={href('payment', id)}>Record a payment</a>
    </p>
  );
}
