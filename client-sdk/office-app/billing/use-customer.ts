import { useGraphQL } from '../../app-kit/hooks.js';
import { OfficeCustomerBalanceDocument, type OfficeCustomerBalanceQuery } from '../graphql/operations.generated.js';

export type CustomerBalance = OfficeCustomerBalanceQuery['infiniteCustomers']['edges'][number]['node'];

/**
 * The customer a billing screen is about (named by the URL), with what they owe and their credit
 * as the server has them now (not the replica: balances move with payments recorded anywhere);
 * `reload()` after recording a payment.
 */
export function useBillingCustomer(id: string | null) {
  const answer = useGraphQL(id ? OfficeCustomerBalanceDocument : null, { id }, [id]);
  const customer: CustomerBalance | null = id ? (answer.data?.infiniteCustomers.edges[0]?.node ?? null) : null;
  return { id, customer, error: answer.error, reload: answer.reload };
}
