import { Alert } from '../../app-kit/components/alert.js';
import { customerName, money } from '../../app-kit/format.js';
import { navigate } from '../../app-kit/route.js';
import { useBillingCustomer } from '../billing/use-customer.js';
import { useCurrency } from '../billing/format.js';
import { BillingNav } from '../components/billing-nav.js';
import { CustomerPicker } from '../components/customer-picker.js';
import { PaymentForm } from '../components/payment-form.js';

/**
 * Record a payment: a customer (from the URL, e.g. from an unpaid invoice, or picked), what they
 * owe and their credit, then the payment (amount, method, reference, the invoices it pays).
 */
export function PaymentScreen({ customerId }: { customerId: string | null }) {
  const { id, customer, error, reload } = useBillingCustomer(customerId);
  const currency = useCurrency();
  return (
    <section aria-labelledby="payment-title">
      <h1 id="payment-title">Record a payment</h1>
      <BillingNav current="payment" />
      {!id ? (
        <CustomerPicker value={null} onChange={(c) => c && navigate('payment', c.id)} />
      ) : (
        <>
          <p className="picked">
            Customer: <strong>{customer ? customerName(customer) : (error ?? 'Loading…')}</strong>{' '}
            <button type="button" className="link" onClick={() => navigate('payment')}>
              change
            </button>
          </p>
          {customer && (
            <p data-testid="customer-balance">
              Balance due {money(customer.balanceDue, currency)} · credit {money(customer.creditBalance, currency)}
            </p>
          )}
          <Alert message={customer ? error : null} />
          <PaymentForm customerId={id} currency={currency} onRecorded={reload} />
        </>
      )}
    </section>
  );
}
