import type { Invoice } from '../../../../shared/index.js';
import { convertQuoteToInvoice } from '../../../operations/billing/from-quote.js';
import { createInvoice, deleteInvoice, updateInvoice } from '../../../operations/billing/drafts.js';
import { FINALIZE_BATCH, FINALIZE_MAX, finalizeInvoice, finalizeInvoices } from '../../../operations/billing/finalize.js';
import { todayIn } from '../../../operations/billing/periods.js';
import { getInvoice, isOverdue, isPartlyPaid, listInvoices } from '../../../operations/billing/read.js';
import { voidInvoice } from '../../../operations/billing/void.js';
import { startBulkOperation } from '../../../operations/bulk/operations.js';
import { GENERATE_INVOICES } from '../../../operations/bulk/kinds/invoices.js';
import type { GraphQLContext, Resolvers } from '../context.js';
import type {
  MutationconvertQuoteToInvoiceArgs,
  MutationcreateInvoiceArgs,
  MutationdeleteInvoiceArgs,
  MutationfinalizeInvoiceArgs,
  MutationfinalizeInvoicesArgs,
  MutationgenerateInvoicesArgs,
  MutationupdateInvoiceArgs,
  MutationvoidInvoiceArgs,
  QueryinfiniteInvoicesArgs,
  QueryinvoiceArgs,
} from '../generated/schema-types.js';
import { connectionSDL } from './lists.js';

/** Invoices (server/operations/billing/README.md): the month's run, drafts, finalizing, voiding. */
export const typeDefs = /* GraphQL */ `
  type Query {
    "Invoices, newest first. first at most 100. ADMIN, OFFICE and API tokens."
    infiniteInvoices(first: Int!, after: String, filter: InvoiceFilter): InvoiceConnection!
    invoice(selector: InvoiceSelector!): Invoice!
  }

  type Mutation {
    "Starts the month's run (bulk operation INVOICES_GENERATE) and answers it: one DRAFT per customer and period with the work not billed yet; its result file lists every customer, billed or skipped and why. The same idempotencyKey answers the same run."
    generateInvoices(input: GenerateInvoicesInput!): BulkOperation!
    "A DRAFT put together by hand."
    createInvoice(input: CreateInvoiceInput!): Invoice!
    "Changes a DRAFT (lines replaced as a whole); a finalized invoice takes only accountingId."
    updateInvoice(id: ID!, input: UpdateInvoiceInput!): Invoice!
    "Deletes a DRAFT (drafts have no number, so no number is lost); its work may be billed again."
    deleteInvoice(id: ID!): Invoice!
    "Numbers and issues a DRAFT (OPEN, or PAID when it totals zero). Finalizing again answers it unchanged."
    finalizeInvoice(id: ID!): Invoice!
    "Finalizes the drafts named (numbered in the order given), or the oldest ${FINALIZE_MAX} drafts (all: true; call again for the rest, until it answers none), in transactions of ${FINALIZE_BATCH}. A draft refused (VOID, no lines, a negative total) is named in the error, after the others are finalized, which stay so; one already OPEN or PAID is answered as it is."
    finalizeInvoices(input: FinalizeInvoicesInput!): [Invoice!]!
    "Withdraws a finalized invoice (refused while payments are applied: reverse them first); its work may be billed again."
    voidInvoice(id: ID!, reason: String!): Invoice!
    "A DRAFT invoice holding an ACCEPTED quote's lines; converting again answers the same invoice."
    convertQuoteToInvoice(quoteId: ID!): Invoice!
  }

  ${connectionSDL('Invoice')}

  "Every field given narrows the list."
  input InvoiceFilter {
    status: InvoiceStatus
    customerId: ID
    "OPEN and past its due date (today in the organization time zone); false: every other invoice."
    overdue: Boolean
    periodStart: Date
    accountingId: String
  }

  input InvoiceSelector {
    id: ID!
  }

  input GenerateInvoicesInput {
    "First day billed (organization time zone)."
    periodStart: Date!
    "Last day billed, included."
    periodEnd: Date!
    "Only these customers; every customer when omitted."
    customerIds: [ID!]
    idempotencyKey: String
  }

  input InvoiceLineInput {
    "A line of the draft to keep (its source stays); omitted for a new MANUAL line."
    id: ID
    description: String!
    quantity: Float!
    unitPrice: Float!
    "Omitted: the customer's tax, else the organization's defaultTaxId (a kept line keeps its own); null: not taxed."
    taxId: ID
  }

  input CreateInvoiceInput {
    customerId: ID!
    periodStart: Date
    periodEnd: Date
    notes: String
    lines: [InvoiceLineInput!]
  }

  input UpdateInvoiceInput {
    notes: String
    accountingId: String
    "Replaces every line: lines left out are removed."
    lines: [InvoiceLineInput!]
  }

  input FinalizeInvoicesInput {
    "The drafts to finalize, at most ${FINALIZE_MAX}, numbered in this order."
    ids: [ID!]
    "The oldest ${FINALIZE_MAX} drafts instead (oldest numbered first)."
    all: Boolean
  }
`;

async function today(ctx: GraphQLContext): Promise<string> {
  return todayIn((await ctx.loaders.organization()).timezone);
}

export const resolvers: Resolvers = {
  Query: {
    infiniteInvoices: (_: unknown, args: QueryinfiniteInvoicesArgs, ctx: GraphQLContext) => listInvoices(ctx, args),
    invoice: (_: unknown, { selector }: QueryinvoiceArgs, ctx: GraphQLContext) => getInvoice(ctx, selector.id),
  },
  Mutation: {
    generateInvoices: async (_: unknown, { input }: MutationgenerateInvoicesArgs, ctx: GraphQLContext) => {
      const { idempotencyKey, ...request } = input;
      const { operation, created } = await startBulkOperation(ctx, { ...request, kind: GENERATE_INVOICES }, idempotencyKey);
      if (created) ctx.bulkStarted?.();
      return operation;
    },
    createInvoice: (_: unknown, { input }: MutationcreateInvoiceArgs, ctx: GraphQLContext) => createInvoice(ctx, input),
    updateInvoice: (_: unknown, { id, input }: MutationupdateInvoiceArgs, ctx: GraphQLContext) => updateInvoice(ctx, id, input),
    deleteInvoice: (_: unknown, { id }: MutationdeleteInvoiceArgs, ctx: GraphQLContext) => deleteInvoice(ctx, id),
    finalizeInvoice: (_: unknown, { id }: MutationfinalizeInvoiceArgs, ctx: GraphQLContext) => finalizeInvoice(ctx, id),
    finalizeInvoices: (_: unknown, { input }: MutationfinalizeInvoicesArgs, ctx: GraphQLContext) => finalizeInvoices(ctx, input),
    voidInvoice: (_: unknown, { id, reason }: MutationvoidInvoiceArgs, ctx: GraphQLContext) => voidInvoice(ctx, id, reason),
    convertQuoteToInvoice: (_: unknown, { quoteId }: MutationconvertQuoteToInvoiceArgs, ctx: GraphQLContext) => convertQuoteToInvoice(ctx, quoteId),
  },
  Invoice: {
    customer: (i: Invoice, _: unknown, ctx: GraphQLContext) => ctx.loaders.customer.load(i.customerId),
    lines: (i: Invoice, _: unknown, ctx: GraphQLContext) => ctx.loaders.invoiceLines.load(i.id),
    applications: (i: Invoice, _: unknown, ctx: GraphQLContext) => ctx.loaders.invoiceApplications.load(i.id),
    overdue: async (i: Invoice, _: unknown, ctx: GraphQLContext) => isOverdue(i, await today(ctx)),
    partlyPaid: (i: Invoice) => isPartlyPaid(i),
  },
};
