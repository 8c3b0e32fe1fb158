import { revokeVisitReportLinks } from '../../../operations/reports/links.js';
import { resendVisitReport, visitReportOf } from '../../../operations/reports/office.js';
import type { GraphQLContext, Resolvers } from '../context.js';
import type { MutationresendVisitReportArgs, MutationrevokeVisitReportLinksArgs, QueryvisitReportArgs } from '../generated/schema-types.js';

/** Visit reports: what went to the customer, sending one again, withdrawing its links. Not in the spec. */
export const typeDefs = /* GraphQL */ `
  type Query {
    "A visit's report: null until the visit is completed (ADMIN, OFFICE, API)."
    visitReport(serviceId: ID!): VisitReport
  }

  type Mutation {
    "Sends the visit's report again, as it is now, once per channel: the channels given, else the customer's reportNotification."
    resendVisitReport(serviceId: ID!, channels: [ReportChannel!]): VisitReport!
    "Withdraws every link to the visit's report page (and its photos); returns how many were live."
    revokeVisitReportLinks(serviceId: ID!): Int!
  }

  enum ReportChannel {
    EMAIL
    TEXT
  }

  enum VisitReportStatus {
    "Completed; sent once the visit has gone VISIT_REPORT_DELAY_SECONDS without a change."
    WAITING
    "Its messages are in the outbox (see messages for each one's delivery)."
    QUEUED
    "Nothing was sent; outcome says why."
    SKIPPED
  }

  type VisitReport {
    serviceId: ID!
    status: VisitReportStatus!
    "1 for the report the completion sent, one more per resend."
    round: Int!
    "To whom it went, or why it was not sent."
    outcome: String
    queuedAt: DateTime
    "Every message of every round, oldest first."
    messages: [OutboxMessage!]!
    "Every link to the report page made so far (one per message sent)."
    links: [VisitReportLink!]!
  }

  type VisitReportLink {
    id: ID!
    createdAt: DateTime!
    expiresAt: DateTime!
    revokedAt: DateTime
  }
`;

export const resolvers: Resolvers = {
  Query: {
    visitReport: (_: unknown, { serviceId }: QueryvisitReportArgs, ctx: GraphQLContext) => visitReportOf(ctx, serviceId),
  },
  Mutation: {
    resendVisitReport: (_: unknown, args: MutationresendVisitReportArgs, ctx: GraphQLContext) => resendVisitReport(ctx, args),
    revokeVisitReportLinks: (_: unknown, { serviceId }: MutationrevokeVisitReportLinksArgs, ctx: GraphQLContext) => revokeVisitReportLinks(ctx, serviceId),
  },
};
