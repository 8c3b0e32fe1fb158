import { cancelBulkOperation, getBulkOperation, listBulkOperations, startBulkOperation, type BulkOperationView } from '../../../operations/bulk/operations.js';
import { listOutbox } from '../../../operations/outgoing-messages.js';
import { REPORT_LINK } from '../../../operations/reports/links.js';
import { INVOICE_LINK } from '../../../operations/billing/invoice-links.js';
import type { OutboxMessage } from '../../../storage/outgoing-messages.js';
import type { GraphQLContext, Resolvers } from '../context.js';
import type { MutationcancelBulkOperationArgs, MutationstartBulkOperationArgs, QuerybulkOperationArgs, QuerybulkOperationsArgs, QueryoutboxMessagesArgs } from '../generated/schema-types.js';
import { connectionSDL } from './lists.js';

/** GraphQL mirror of the REST bulk-operations interface, and the outbox. */
export const typeDefs = /* GraphQL */ `
  type Query {
    bulkOperation(id: ID!): BulkOperation!
    "Newest first."
    bulkOperations(status: BulkOperationStatus, kind: String, first: Int, after: String): BulkOperationConnection!
    "Emails and texts produced by bulk operations and visit reports, newest first."
    outboxMessages(channel: MessageChannel, operationId: ID, first: Int, after: String): OutboxMessageConnection!
  }

  type Mutation {
    "Starts {kind, ...payload} (server/README.md, Bulk operations, lists kinds and payloads); the same idempotencyKey returns the same operation."
    startBulkOperation(input: StartBulkOperationInput!): BulkOperation!
    "Stops a running operation after its current chunk; a queued one is cancelled at once."
    cancelBulkOperation(id: ID!): BulkOperation!
  }

  input StartBulkOperationInput {
    kind: String!
    "The kind's payload, e.g. {selection: {ids: [...]}, patch: {...}}."
    payload: JSON
    idempotencyKey: String
  }

  enum BulkOperationStatus {
    QUEUED
    RUNNING
    SUCCEEDED
    FAILED
    CANCELLED
    PARTIAL
  }

  type BulkItemError {
    index: Int
    id: ID
    code: String!
    message: String!
  }

  type BulkOperation {
    id: ID!
    kind: String!
    status: BulkOperationStatus!
    total: Int!
    processed: Int!
    succeeded: Int!
    failed: Int!
    "Items with nothing to do (e.g. a customer without an email address for an email)."
    skipped: Int!
    "The first 100 item failures."
    errors: [BulkItemError!]!
    "Signed, expiring link to the result file (exports)."
    resultUrl: String
    createdAt: DateTime!
    startedAt: DateTime
    finishedAt: DateTime
  }

  ${connectionSDL('BulkOperation')}

  enum MessageChannel {
    EMAIL
    SMS
  }

  type OutboxMessage {
    id: ID!
    operationId: ID!
    channel: MessageChannel!
    "The customer it went to; null for a notice to the organization itself (a webhook endpoint disabled)."
    customerId: ID
    recipient: String!
    subject: String
    "The text, or an email's plain-text part. A visit report's link shows as [report link], an invoice's as [invoice link]: each sending makes its own."
    body: String!
    "The visit whose report this is (null for a bulk message)."
    serviceId: ID
    "The invoice this email delivers (its PDF is attached when it is sent)."
    invoiceId: ID
    "Copied to (an invoice's billingCCEmail)."
    cc: String
    "PENDING, SENT, STORED (no sender configured) or FAILED."
    status: String!
    "Why the last attempt failed (a report message is tried up to 5 times)."
    error: String
    attempts: Int!
    createdAt: DateTime!
    sentAt: DateTime
  }

  ${connectionSDL('OutboxMessage')}
`;


export const resolvers: Resolvers = {
  OutboxMessage: {
    body: (m: OutboxMessage) => m.body.replaceAll(REPORT_LINK, '[report link]').replaceAll(INVOICE_LINK, '[invoice link]'),
  },
  Query: {
    bulkOperation: (_: unknown, { id }: QuerybulkOperationArgs, ctx: GraphQLContext) => getBulkOperation(ctx, id),
    bulkOperations: (_: unknown, args: QuerybulkOperationsArgs, ctx: GraphQLContext) => listBulkOperations(ctx, args),
    outboxMessages: (_: unknown, args: QueryoutboxMessagesArgs, ctx: GraphQLContext) => listOutbox(ctx, args),
  },
  Mutation: {
    startBulkOperation: async (_: unknown, { input }: MutationstartBulkOperationArgs, ctx: GraphQLContext) => {
      const { operation, created } = await startBulkOperation(ctx, { ...(input.payload ?? {}), kind: input.kind }, input.idempotencyKey);
      if (created) ctx.bulkStarted?.();
      return operation;
    },
    cancelBulkOperation: (_: unknown, { id }: MutationcancelBulkOperationArgs, ctx: GraphQLContext) => cancelBulkOperation(ctx, id),
  },
  BulkOperation: {
    resultUrl: (op: BulkOperationView, _: unknown, ctx: GraphQLContext) => (op.resultKey ? ctx.fileUrl(op.resultKey) : null),
  },
};
