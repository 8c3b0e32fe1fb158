import DataLoader from 'dataloader';
import type { Customer, Invoice, Payment, PaymentApplication } from '../../../../shared/index.js';
import { getPayment, listPayments, paymentRelations } from '../../../operations/billing/payment-reads.js';
import { recordPayment, reversePayment } from '../../../operations/billing/payments.js';
import { balancesOf, customerStatement, receivablesAging, type Balances } from '../../../operations/billing/receivables.js';
import type { OperationContext } from '../../../operations/context.js';
import type { GraphQLContext, Resolvers } from '../context.js';
import type {
  MutationrecordPaymentArgs,
  MutationreversePaymentArgs,
  QuerycustomerStatementArgs,
  QueryinfinitePaymentsArgs,
  QuerypaymentArgs,
  QueryreceivablesAgingArgs,
} from '../generated/schema-types.js';
import { connectionSDL } from './lists.js';

/** The spec's payment operations, a customer's statement, the receivables' aging and customers' balances. */
export const typeDefs = /* GraphQL */ `
  type Query {
    "Payments and reversals, newest received first. first at most 100. ADMIN, OFFICE, API."
    infinitePayments(first: Int!, after: String, filter: PaymentFilter): PaymentConnection!
    "One payment (a TECHNICIAN: of its own customers)."
    payment(selector: PaymentSelector!): Payment!
    "A customer's invoices and payments between two days (both included) with the running balance. ADMIN, OFFICE, API."
    customerStatement(customerId: ID!, from: Date!, to: Date!): CustomerStatement!
    "What customers owed on a day (today by default), by days past due. ADMIN, OFFICE, API."
    receivablesAging(asOf: Date): ReceivablesAging!
  }

  type Mutation {
    """
    Records a payment and applies it: to the invoices named, in order, then to the customer's other
    open invoices, oldest due first; what is left is the customer's credit. Idempotent by id: the
    same payment again answers the stored one. ADMIN, OFFICE, API; a TECHNICIAN for its own customers.
    """
    recordPayment(input: RecordPaymentInput!): Payment!
    "Reverses a payment (a bounced check, a refund), reopening what it paid. Once per payment. ADMIN, OFFICE, API."
    reversePayment(id: ID!, reason: String!): Payment!
  }

  ${connectionSDL('Payment')}

  "Each field narrows the list when given."
  input PaymentFilter {
    customerId: ID
    accountingId: String
    paymentProcessorId: String
  }

  input PaymentSelector {
    id: ID!
  }

  input RecordPaymentInput {
    "Made by the caller (a payment taken offline keeps the id its device gave it); generated otherwise."
    id: ID
    customerId: ID!
    "More than 0, at most the currency's decimals."
    amount: Float!
    "The organization's currency (the default); any other is refused."
    currency: String
    "CARD records a card payment taken elsewhere: no payment processor is called."
    method: PaymentMethod!
    reference: String
    "When the money was received (now by default)."
    receivedAt: DateTime
    "Invoices of the customer to pay first, in this order."
    invoiceIds: [ID!]
    "The payment's id at a payment processor, when one took it."
    paymentProcessorId: String
    accountingId: String
  }

  enum StatementLineKind {
    INVOICE
    PAYMENT
    REVERSAL
  }

  type StatementLine {
    "The invoice's issue date, or the day the payment was received (the organization's time zone)."
    date: Date!
    kind: StatementLineKind!
    invoiceId: ID
    paymentId: ID
    "An invoice's number, a payment's reference."
    reference: String
    method: PaymentMethod
    "Positive: owed (an invoice, a reversal); negative: paid."
    amount: Float!
    "Owed after this line; negative when the customer is in credit."
    balance: Float!
  }

  type CustomerStatement {
    customer: Customer!
    from: Date!
    to: Date!
    currency: String!
    "Owed at the start of from."
    openingBalance: Float!
    "Invoices issued in the period."
    invoiced: Float!
    "Payments received in the period, less reversals."
    paid: Float!
    "Owed at the end of to."
    closingBalance: Float!
    lines: [StatementLine!]!
  }

  type AgingBuckets {
    "Not yet past its due date."
    current: Float!
    days1to30: Float!
    days31to60: Float!
    days61to90: Float!
    over90: Float!
    total: Float!
  }

  type CustomerAging {
    customer: Customer!
    customerName: String!
    buckets: AgingBuckets!
  }

  type ReceivablesAging {
    asOf: Date!
    currency: String!
    "Customers who owed something, by name."
    customers: [CustomerAging!]!
    totals: AgingBuckets!
  }
`;

/** This request's batch loaders of the ledger, made on first use and dropped with the request. */
const requestLoaders = new WeakMap<OperationContext, ReturnType<typeof ledgerLoaders>>();

function ledgerLoaders(ctx: OperationContext) {
  const grouped = <T>(fetch: (ids: readonly string[]) => Promise<T[]>, keyOf: (row: T) => string) =>
    new DataLoader<string, T[]>(async (ids) => {
      const rows = await fetch(ids);
      return ids.map((id) => rows.filter((r) => keyOf(r) === id));
    });
  return {
    balances: new DataLoader<string, Balances | null>((ids) => balancesOf(ctx, ids)),
    applications: grouped((ids) => paymentRelations.applications(ctx, ids), (a) => a.paymentId),
    reversals: grouped((ids) => paymentRelations.reversals(ctx, ids), (p) => p.reversesPaymentId ?? ''),
    unapplied: new DataLoader<string, number>(async (ids) => {
      const found = await paymentRelations.unapplied(ctx, ids);
      return ids.map((id) => found.get(id) ?? 0);
    }),
    payment: grouped((ids) => paymentRelations.byIds(ctx, ids), (p) => p.id),
    invoice: grouped((ids) => paymentRelations.invoices(ctx, ids), (i: Invoice) => i.id),
  };
}

function loaders(ctx: OperationContext) {
  let found = requestLoaders.get(ctx);
  if (!found) requestLoaders.set(ctx, (found = ledgerLoaders(ctx)));
  return found;
}

export const resolvers: Resolvers = {
  Query: {
    infinitePayments: (_: unknown, args: QueryinfinitePaymentsArgs, ctx: GraphQLContext) => listPayments(ctx, args),
    payment: (_: unknown, { selector }: QuerypaymentArgs, ctx: GraphQLContext) => getPayment(ctx, selector.id),
    customerStatement: (_: unknown, args: QuerycustomerStatementArgs, ctx: GraphQLContext) => customerStatement(ctx, args),
    receivablesAging: async (_: unknown, args: QueryreceivablesAgingArgs, ctx: GraphQLContext) => {
      const aging = await receivablesAging(ctx, args);
      return {
        ...aging,
        customers: aging.customers.map(({ customerId, customerName, ...buckets }) => ({ customerId, customerName, buckets })),
      };
    },
  },
  Mutation: {
    recordPayment: (_: unknown, { input }: MutationrecordPaymentArgs, ctx: GraphQLContext) => recordPayment(ctx, input),
    reversePayment: (_: unknown, { id, reason }: MutationreversePaymentArgs, ctx: GraphQLContext) => reversePayment(ctx, id, reason),
  },
  Payment: {
    customer: (p: Payment, _: unknown, ctx: GraphQLContext) => ctx.loaders.customer.load(p.customerId),
    applications: (p: Payment, _: unknown, ctx: GraphQLContext) => loaders(ctx).applications.load(p.id),
    unapplied: (p: Payment, _: unknown, ctx: GraphQLContext) => loaders(ctx).unapplied.load(p.id),
    reversedBy: async (p: Payment, _: unknown, ctx: GraphQLContext) => (await loaders(ctx).reversals.load(p.id))[0] ?? null,
  },
  PaymentApplication: {
    payment: async (a: PaymentApplication, _: unknown, ctx: GraphQLContext) => (await loaders(ctx).payment.load(a.paymentId))[0],
    invoice: async (a: PaymentApplication, _: unknown, ctx: GraphQLContext) => (await loaders(ctx).invoice.load(a.invoiceId))[0],
  },
  CustomerStatement: {
    customer: (s: { customerId: string }, _: unknown, ctx: GraphQLContext) => ctx.loaders.customer.load(s.customerId),
  },
  CustomerAging: {
    customer: (a: { customerId: string }, _: unknown, ctx: GraphQLContext) => ctx.loaders.customer.load(a.customerId),
  },
  Customer: {
    creditBalance: async (c: Customer, _: unknown, ctx: GraphQLContext) => (await loaders(ctx).balances.load(c.id))?.creditBalance ?? null,
    balanceDue: async (c: Customer, _: unknown, ctx: GraphQLContext) => (await loaders(ctx).balances.load(c.id))?.balanceDue ?? null,
  },
};
