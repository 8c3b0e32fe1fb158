import type { Quote } from '../../../../shared/index.js';
import { createQuote, getQuote, listQuotes, updateQuote } from '../../../operations/quotes.js';
import { generatedPdfHash } from '../../../operations/quote-pdfs.js';
import type { GraphQLContext, Resolvers } from '../context.js';
import { withPhotoUrls } from '../file-urls.js';
import type { MutationcreateQuoteArgs, MutationupdateQuoteArgs, QueryinfiniteQuotesArgs, QueryquoteArgs } from '../generated/schema-types.js';
import { connectionSDL } from './lists.js';

/** The spec's quote operations. */
export const typeDefs = /* GraphQL */ `
  type Query {
    "Quotes, newest first. first at most 100."
    infiniteQuotes(first: Int!, after: String, filter: QuoteFilter): QuoteConnection!
    quote(selector: QuoteSelector!): Quote!
  }

  type Mutation {
    "Creates a DRAFT quote; number, line amounts, subtotal, tax and total are computed by the server."
    createQuote(input: CreateQuoteInput!): Quote!
    "Content changes only while DRAFT; status moves DRAFT -> SENT -> ACCEPTED | DECLINED | EXPIRED."
    updateQuote(id: ID!, input: UpdateQuoteInput!): Quote!
  }

  ${connectionSDL('Quote')}

  "Both fields narrow the list when given."
  input QuoteFilter {
    status: QuoteStatus
    customerId: ID
  }

  input QuoteSelector {
    id: ID!
  }

  input QuoteLineItemCreate {
    "Kept when given (for example a line id made on a device); generated otherwise."
    id: ID
    description: String!
    quantity: Float!
    unitPrice: Float!
  }

  input CreateQuoteInput {
    customerId: ID!
    title: String!
    validUntil: DateTime
    lineItems: [QuoteLineItemCreate!]
    "The tax to apply; the organization's defaultTaxId when omitted."
    taxId: ID
    notes: String
    terms: String
  }

  input UpdateQuoteInput {
    status: QuoteStatus
    customerId: ID
    title: String
    validUntil: DateTime
    "Replaces all lines."
    lineItems: [QuoteLineItemCreate!]
    taxId: ID
    notes: String
    terms: String
  }
`;


export const resolvers: Resolvers = {
  Query: {
    infiniteQuotes: (_: unknown, args: QueryinfiniteQuotesArgs, ctx: GraphQLContext) => listQuotes(ctx, args),
    quote: (_: unknown, { selector }: QueryquoteArgs, ctx: GraphQLContext) => getQuote(ctx, selector.id),
  },
  Mutation: {
    createQuote: (_: unknown, { input }: MutationcreateQuoteArgs, ctx: GraphQLContext) => createQuote(ctx, input),
    updateQuote: (_: unknown, { id, input }: MutationupdateQuoteArgs, ctx: GraphQLContext) => updateQuote(ctx, id, input),
  },
  Quote: {
    customer: async (q: Quote, _: unknown, ctx: GraphQLContext) => ctx.loaders.customer.load(q.customerId),
    photos: (q: Quote, _: unknown, ctx: GraphQLContext) => withPhotoUrls(ctx, 'quotes', q.id, q.photos),
    // The custom PDF when one was uploaded, else the generated one (made when the link is fetched).
    pdfUrl: async (q: Quote, _: unknown, ctx: GraphQLContext) => {
      if (q.pdfKey) return ctx.fileUrl(q.pdfKey);
      const contentHash = await generatedPdfHash(q, {
        organization: ctx.loaders.organization,
        customer: (id) => ctx.loaders.customer.load(id),
        tax: (id) => ctx.loaders.tax.load(id),
      });
      return ctx.quotePdfUrl({ orgId: ctx.viewer.orgId, quoteId: q.id, contentHash });
    },
  },
};
