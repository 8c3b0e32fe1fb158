import type { Invoice } from '../../../../shared/index.js';
import { sendInvoice } from '../../../operations/billing/invoice-emails.js';
import { revokeInvoiceLinks } from '../../../operations/billing/invoice-links.js';
import type { GraphQLContext, Resolvers } from '../context.js';
import type { MutationrevokeInvoiceLinksArgs, MutationsendInvoiceArgs } from '../generated/schema-types.js';

/** Delivering invoices: the email with its PDF, the PDF's link, withdrawing the links an email carried. */
export const typeDefs = /* GraphQL */ `
  type Mutation {
    "Emails the invoice to the customer's billingEmail (else their first email), billingCCEmail copied, with its PDF attached and a link to its page: one email per call. OPEN and PAID invoices only; a DRAFT must be finalized first (ADMIN, OFFICE, API)."
    sendInvoice(id: ID!): Invoice!
    "Withdraws every link to the invoice's page (and its PDF) that its emails carried; returns how many were live (ADMIN, OFFICE, API)."
    revokeInvoiceLinks(invoiceId: ID!): Int!
  }
`;

export const resolvers: Resolvers = {
  Mutation: {
    sendInvoice: (_: unknown, { id }: MutationsendInvoiceArgs, ctx: GraphQLContext) => sendInvoice(ctx, id),
    revokeInvoiceLinks: (_: unknown, { invoiceId }: MutationrevokeInvoiceLinksArgs, ctx: GraphQLContext) => revokeInvoiceLinks(ctx, invoiceId),
  },
  Invoice: {
    // A signed, expiring link; the PDF is made as the invoice is when the link is fetched.
    pdfUrl: (invoice: Invoice, _: unknown, ctx: GraphQLContext) => ctx.invoicePdfUrl({ orgId: ctx.viewer.orgId, invoiceId: invoice.id }),
  },
};
