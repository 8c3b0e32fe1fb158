import { useEffect, useState } from 'react';
import { useGraphQL } from '../../app-kit/hooks.js';
import type { PickedCustomer } from '../components/customer-picker.js';
import { OfficeCustomerBalanceDocument, type OfficeCustomerBalanceQuery } from '../graphql/operations.generated.js';

export type CustomerBalance = OfficeCustomerBalanceQuery['infiniteCustomers']['edges'][number]['node'];

/**
 * The customer a billing screen is about (named by the URL, or picked), with what they owe and
 * their credit as the server has them now; `reload()` after recording a payment.
 */
export function useBillingCustomer(routeId: string | null) {
  const [picked, setPicked] = useState<PickedCustomer | null>(null);
  useEffect(() => setPicked(null), [routeId]);
  const id = picked?.id ?? routeId;
  const answer = useGraphQL(id ? OfficeCustomerBalanceDocument : null, { id }, [id]);
  const customer = id ? (answer.data?.infiniteCustomers.edges[0]?.node ?? null) : null;
  return { id, customer, error: answer.error, reload: answer.reload, pick: setPicked };
}
