import { listDeliveryAttempts, listEvents } from '../../../operations/events/feed.js';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  listWebhookEndpoints,
  redeliverEvent,
  rotateWebhookSecret,
  updateWebhookEndpoint,
  type EndpointWithSecret,
} from '../../../operations/events/endpoints.js';
import type { GraphQLContext, Resolvers } from '../context.js';
import type {
  MutationcreateWebhookEndpointArgs,
  MutationdeleteWebhookEndpointArgs,
  MutationredeliverEventArgs,
  MutationrotateWebhookSecretArgs,
  MutationupdateWebhookEndpointArgs,
  QueryinfiniteEventsArgs,
  QueryinfiniteWebhookDeliveriesArgs,
} from '../generated/schema-types.js';
import { connectionSDL } from './lists.js';

/** Events for integrators: the feed, webhook endpoints and their delivery log (server/operations/events/README.md). */
export const typeDefs = /* GraphQL */ `
  type Query {
    "The organization's events of the last 30 days, in commit order: a cursor never skips an event committed late. first at most 100. ADMIN, OFFICE or API."
    infiniteEvents(first: Int!, after: String, filter: EventFilter): EventConnection!
    "The organization's webhook endpoints, oldest first (ADMIN)."
    webhookEndpoints: [WebhookEndpoint!]!
    "Every attempt to deliver an event to an endpoint, newest first (ADMIN). first at most 100."
    infiniteWebhookDeliveries(first: Int!, after: String, filter: WebhookDeliveryFilter): WebhookDeliveryConnection!
  }

  type Mutation {
    "Adds an endpoint (ADMIN). The answer carries its signing secret, this once: a retry with the same Idempotency-Key answers secret null."
    createWebhookEndpoint(input: CreateWebhookEndpointInput!): WebhookEndpointSecret!
    "Changes an endpoint (ADMIN); fields not given stay. enabled: true enables a disabled endpoint, which receives events from then on."
    updateWebhookEndpoint(id: ID!, input: UpdateWebhookEndpointInput!): WebhookEndpoint!
    "A new signing secret, answered this once; the old one keeps signing beside it for 24 hours (ADMIN)."
    rotateWebhookSecret(id: ID!): WebhookEndpointSecret!
    "Deletes an endpoint with its delivery log (ADMIN)."
    deleteWebhookEndpoint(id: ID!): WebhookEndpoint!
    "Sends an event of the last 30 days to the endpoint again, now, with the same webhook-id (ADMIN)."
    redeliverEvent(eventId: ID!, endpointId: ID!): WebhookRedelivery!
  }

  "Something that happened: a record's id and what changed. Read the record itself through its query."
  type Event {
    "Also the webhook-id header of its deliveries: receivers drop an id they have seen."
    id: ID!
    "e.g. customer.updated, visit.completed, quote.accepted, inventory.low_stock."
    type: String!
    occurredAt: DateTime!
    organizationId: ID!
    "{id, ...}: the record's id and, per type, what changed (see the event types)."
    data: JSON!
  }

  ${connectionSDL('Event')}

  input EventFilter {
    "Only these types; none or empty: every type."
    types: [String!]
  }

  type WebhookEndpoint {
    id: ID!
    url: String!
    description: String
    "The types delivered; null: every type."
    eventTypes: [String!]
    enabled: Boolean!
    "When and why it was disabled (410 Gone, failing for days, or by an ADMIN)."
    disabledAt: DateTime
    disabledReason: String
    "Every attempt since then has failed (null: the last attempt succeeded)."
    failingSince: DateTime
    lastSuccessAt: DateTime
    lastFailureAt: DateTime
    "Until when the secret before the last rotation still signs beside the current one."
    previousSecretExpiresAt: DateTime
    "Deliveries waiting for an attempt or a retry."
    pendingDeliveries: Int!
    "Deliveries whose retries ran out (or stopped when it was disabled), kept 30 days: redeliverEvent sends one again."
    failedDeliveries: Int!
    createdAt: DateTime!
    updatedAt: DateTime!
  }

  type WebhookEndpointSecret {
    endpoint: WebhookEndpoint!
    "whsec_ + base64: verifies the webhook-signature of each delivery (Standard Webhooks). Shown once; null in a replayed answer."
    secret: String
  }

  input CreateWebhookEndpointInput {
    "https (plain http only where WEBHOOK_ALLOW_HTTP is set, for development)."
    url: String!
    "Types to deliver; none or empty: every type."
    eventTypes: [String!]
    description: String
  }

  input UpdateWebhookEndpointInput {
    url: String
    eventTypes: [String!]
    description: String
    enabled: Boolean
  }

  "One attempt to deliver an event to an endpoint."
  type WebhookDelivery {
    id: ID!
    endpointId: ID!
    "The event (and the attempt's webhook-id)."
    eventId: ID!
    eventType: String!
    "1 for the first attempt of the event to the endpoint, then each retry."
    attempt: Int!
    attemptedAt: DateTime!
    "The HTTP status answered; null when nothing was (refused, unreachable, too slow)."
    status: Int
    durationMs: Int!
    "Why it failed; null when it succeeded (a 2xx)."
    error: String
    succeeded: Boolean!
  }

  ${connectionSDL('WebhookDelivery')}

  input WebhookDeliveryFilter {
    endpointId: ID
    eventId: ID
  }

  type WebhookRedelivery {
    eventId: ID!
    endpointId: ID!
  }
`;

/** The secret is shown once: the answer kept for replays has null in its place. */
function showOnce(ctx: GraphQLContext, answer: EndpointWithSecret): EndpointWithSecret {
  ctx.concealInReplays?.(answer.secret);
  return answer;
}

export const resolvers: Resolvers = {
  Query: {
    infiniteEvents: (_: unknown, args: QueryinfiniteEventsArgs, ctx: GraphQLContext) => listEvents(ctx, args),
    webhookEndpoints: (_: unknown, __: unknown, ctx: GraphQLContext) => listWebhookEndpoints(ctx),
    infiniteWebhookDeliveries: (_: unknown, args: QueryinfiniteWebhookDeliveriesArgs, ctx: GraphQLContext) => listDeliveryAttempts(ctx, args),
  },
  Mutation: {
    createWebhookEndpoint: async (_: unknown, { input }: MutationcreateWebhookEndpointArgs, ctx: GraphQLContext) =>
      showOnce(ctx, await createWebhookEndpoint(ctx, input, ctx.webhookPolicy)),
    updateWebhookEndpoint: (_: unknown, { id, input }: MutationupdateWebhookEndpointArgs, ctx: GraphQLContext) => updateWebhookEndpoint(ctx, id, input, ctx.webhookPolicy),
    rotateWebhookSecret: async (_: unknown, { id }: MutationrotateWebhookSecretArgs, ctx: GraphQLContext) => showOnce(ctx, await rotateWebhookSecret(ctx, id)),
    deleteWebhookEndpoint: (_: unknown, { id }: MutationdeleteWebhookEndpointArgs, ctx: GraphQLContext) => deleteWebhookEndpoint(ctx, id),
    redeliverEvent: (_: unknown, { eventId, endpointId }: MutationredeliverEventArgs, ctx: GraphQLContext) => redeliverEvent(ctx, eventId, endpointId),
  },
  Event: {
    organizationId: (e: { orgId: string }) => e.orgId,
  },
  WebhookEndpoint: {
    previousSecretExpiresAt: (e: { previousSecretUntil: string | null }) => e.previousSecretUntil,
  },
  WebhookDelivery: {
    status: (a: { statusCode: number | null }) => a.statusCode,
  },
};
