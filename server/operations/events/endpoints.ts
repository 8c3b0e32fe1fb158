import { z } from 'zod';
import { errors, EVENT_RETENTION_DAYS, EVENT_TYPES, isEventType } from '../../../shared/index.js';
import type { WebhooksConfig } from '../../config.js';
import { eventById } from '../../storage/events.js';
import { queueRedelivery } from '../../storage/webhook-deliveries.js';
import {
  countEndpoints,
  deleteEndpoint,
  disableEndpoint,
  enableEndpoint,
  findEndpoint,
  insertEndpoint,
  listEndpoints,
  rotateEndpointSecret,
  updateEndpoint,
  type WebhookEndpointRow,
} from '../../storage/webhook-endpoints.js';
import { requireRole, type OperationContext } from '../context.js';
import { newId } from '../ids.js';
import { parseInput } from '../input.js';
import { addressRefusal, literalAddress } from './addresses.js';
import { newSigningSecret } from './signing.js';

/**
 * An organization's webhook endpoints, managed by its ADMINs: created with a URL and the event
 * types they want, answered with the signing secret once; changed, disabled and enabled, given a
 * new secret (the old one signs beside it for a day), deleted; and an event sent again.
 */
export type WebhookPolicy = Pick<WebhooksConfig, 'allowHttp' | 'allowPrivateAddresses'>;

/** The strict policy: https only, public addresses only. */
export const STRICT_POLICY: WebhookPolicy = { allowHttp: false, allowPrivateAddresses: false };

/** An endpoint and its signing secret, answered once (never again: an Idempotency-Key replay answers null). */
export interface EndpointWithSecret {
  endpoint: WebhookEndpointRow;
  secret: string;
}

/** How long the secret before a rotation keeps signing beside the new one. */
export const ROTATION_OVERLAP_SECONDS = 24 * 3600;
/** Endpoints one organization may have. */
export const MAX_ENDPOINTS = 20;

const EventTypesInput = z
  .array(z.string().max(100))
  .max(EVENT_TYPES.length)
  .nullish()
  .superRefine((types, ctx) => {
    const unknown = (types ?? []).filter((t) => !isEventType(t));
    if (unknown.length) ctx.addIssue({ code: 'custom', message: `unknown event type ${unknown.join(', ')}; the types are ${EVENT_TYPES.join(', ')}` });
  });

const EndpointFields = {
  url: z.string().trim().min(1, 'is required').max(2000, 'is at most 2000 characters'),
  eventTypes: EventTypesInput,
  description: z.string().max(500, 'is at most 500 characters').nullish(),
};
const CreateInput = z.strictObject(EndpointFields);
const UpdateInput = z.strictObject({ ...EndpointFields, url: EndpointFields.url.optional(), enabled: z.boolean().nullish() });

/** An empty list, like none, means every type. */
const typesOrAll = (types: readonly string[] | null | undefined) => (types?.length ? [...new Set(types)] : null);

/**
 * The URL an endpoint may have: http(s) with a host, no credentials; https unless http is allowed
 * (development). A host written as an address must be public (names are checked at each attempt,
 * after they are resolved: a name can change what it points at).
 */
export function checkEndpointUrl(raw: string, policy: WebhookPolicy): string {
  const bad = (why: string) => errors.badInput(`url: ${why}`, { fields: ['url'] });
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw bad('is not a URL (e.g. https://hooks.example.com/pool-service)');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp)) {
    throw bad(policy.allowHttp ? 'must be http or https' : 'must be https (plain http is only for development, with WEBHOOK_ALLOW_HTTP)');
  }
  if (url.username || url.password) throw bad('may not carry a user name or password (the signature authenticates deliveries)');
  const literal = literalAddress(url.hostname);
  const refusal = literal && !policy.allowPrivateAddresses ? addressRefusal(literal.address) : null;
  if (refusal) throw bad(`${url.hostname} is a ${refusal} address; webhooks go to public addresses only`);
  url.hash = '';
  return url.toString();
}

const ADMIN_ONLY = ['ADMIN'] as const;

export async function createWebhookEndpoint(ctx: OperationContext, raw: unknown, policy: WebhookPolicy): Promise<EndpointWithSecret> {
  requireRole(ctx.viewer, ADMIN_ONLY, 'manage webhook endpoints');
  const input = parseInput(CreateInput, raw);
  const url = checkEndpointUrl(input.url, policy);
  const secret = newSigningSecret();
  return ctx.db.transaction(async (tx) => {
    if ((await countEndpoints(tx, ctx.viewer.orgId)) >= MAX_ENDPOINTS) {
      throw errors.badInput(`An organization may have at most ${MAX_ENDPOINTS} webhook endpoints; delete one first`);
    }
    const endpoint = await insertEndpoint(tx, ctx.viewer.orgId, {
      id: newId(),
      url,
      description: input.description ?? null,
      eventTypes: typesOrAll(input.eventTypes),
      secret,
      createdBy: ctx.viewer.userId,
    });
    return { endpoint, secret };
  });
}

/**
 * Changes an endpoint: fields not given stay. `enabled: true` enables a disabled endpoint (it
 * receives events from then on); `enabled: false` disables it (its waiting deliveries stop).
 */
export async function updateWebhookEndpoint(ctx: OperationContext, id: string, raw: unknown, policy: WebhookPolicy): Promise<WebhookEndpointRow> {
  requireRole(ctx.viewer, ADMIN_ONLY, 'manage webhook endpoints');
  const input = parseInput(UpdateInput, raw);
  const orgId = ctx.viewer.orgId;
  const url = input.url === undefined ? undefined : checkEndpointUrl(input.url, policy);
  await ctx.db.transaction(async (tx) => {
    const found = await updateEndpoint(tx, orgId, id, {
      ...(url !== undefined ? { url } : {}),
      ...(input.description !== undefined ? { description: input.description ?? null } : {}),
      ...(input.eventTypes !== undefined ? { eventTypes: typesOrAll(input.eventTypes) } : {}),
    });
    if (!found) throw errors.notFound('Webhook endpoint', id);
    if (input.enabled === true) await enableEndpoint(tx, orgId, id);
    if (input.enabled === false) await disableEndpoint(tx, orgId, id, 'Disabled by an ADMIN');
  });
  return (await findEndpoint(ctx.db, orgId, id))!;
}

/** A new secret, answered once; the one it replaces keeps signing beside it for a day. */
export async function rotateWebhookSecret(ctx: OperationContext, id: string): Promise<EndpointWithSecret> {
  requireRole(ctx.viewer, ADMIN_ONLY, 'manage webhook endpoints');
  const secret = newSigningSecret();
  return ctx.db.transaction(async (tx) => {
    if (!(await rotateEndpointSecret(tx, ctx.viewer.orgId, id, secret, ROTATION_OVERLAP_SECONDS))) throw errors.notFound('Webhook endpoint', id);
    return { endpoint: (await findEndpoint(tx, ctx.viewer.orgId, id))!, secret };
  });
}

export async function deleteWebhookEndpoint(ctx: OperationContext, id: string): Promise<WebhookEndpointRow> {
  requireRole(ctx.viewer, ADMIN_ONLY, 'manage webhook endpoints');
  const deleted = await ctx.db.transaction((tx) => deleteEndpoint(tx, ctx.viewer.orgId, id));
  if (!deleted) throw errors.notFound('Webhook endpoint', id);
  return deleted;
}

export async function listWebhookEndpoints(ctx: OperationContext): Promise<WebhookEndpointRow[]> {
  requireRole(ctx.viewer, ADMIN_ONLY, 'see webhook endpoints');
  return listEndpoints(ctx.db, ctx.viewer.orgId);
}

/** The delivery as queued again: which event to which endpoint. */
export interface Redelivery {
  eventId: string;
  endpointId: string;
}

/**
 * Sends an event of the last 30 days to an endpoint again, now (whether or not it was delivered
 * or subscribed to), with the same webhook-id, and with retries if it fails.
 */
export async function redeliverEvent(ctx: OperationContext, eventId: string, endpointId: string): Promise<Redelivery> {
  requireRole(ctx.viewer, ADMIN_ONLY, 'redeliver events');
  const orgId = ctx.viewer.orgId;
  return ctx.db.transaction(async (tx) => {
    const event = await eventById(tx, orgId, eventId);
    if (!event || Date.parse(event.occurredAt) < Date.now() - EVENT_RETENTION_DAYS * 86_400_000) throw errors.notFound('Event', eventId);
    const endpoint = await findEndpoint(tx, orgId, endpointId);
    if (!endpoint) throw errors.notFound('Webhook endpoint', endpointId);
    if (!endpoint.enabled) throw errors.badInput(`endpointId: the endpoint is disabled (${endpoint.disabledReason ?? 'by a user'}); enable it first`, { fields: ['endpointId'] });
    await queueRedelivery(tx, orgId, endpointId, event);
    return { eventId, endpointId };
  });
}
