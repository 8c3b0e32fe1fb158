import Mustache from 'mustache';
import { z } from 'zod';
import type { Customer } from '../../../../shared/index.js';
import { customersByIds } from '../../../storage/customers.js';
import type { NewMessage } from '../../../storage/outgoing-messages.js';
import { recipientOf, type MessageChannel } from '../../recipients.js';
import { defineKind, idsOf, itemRecordId, type IdsPayload, type ItemOutcome, type KindDefinition } from '../kind.js';
import { CustomerSelection, customerSelection } from './customers.js';

/** Emails and texts to a selection of customers, written to the outbox chunk by chunk. */

type Channel = MessageChannel;
type MessagePayload = IdsPayload & { subject?: string; body: string };

/** Templates use customer fields: "Hi {{firstName}}, ..." (plain text, nothing escaped). */
function render(template: string, customer: Customer): string {
  return Mustache.render(template, customer, {}, { escape: (text: string) => String(text) });
}

const Requests = {
  EMAIL: z.strictObject({ selection: CustomerSelection, subject: z.string().trim().min(1).max(300), body: z.string().trim().min(1).max(20_000) }),
  SMS: z.strictObject({ selection: CustomerSelection, body: z.string().trim().min(1).max(1600) }),
};

function messageKind(kind: string, channel: Channel): KindDefinition {
  return defineKind<MessagePayload, string>({
    kind,
    async prepare(q, orgId, raw) {
      const { selection, ...message } = Requests[channel].parse(raw);
      // A template that does not parse is the request's mistake, told before anything runs.
      for (const template of Object.values(message)) Mustache.parse(template);
      const found = await customerSelection(q, orgId, selection);
      return { payload: { ids: found, ...message }, total: found.length };
    },
    run: {
      type: 'chunked',
      items: idsOf,
      sendsMessages: true,
      async apply(env, payload, items) {
        const byId = new Map((await customersByIds(env.tx, env.orgId, items.map((i) => i.item))).map((c) => [c.id, c]));
        const outcomes: ItemOutcome[] = [];
        const messages: Omit<NewMessage, 'status'>[] = [];
        for (const { index, item } of items) {
          const customer = byId.get(item);
          const recipient = customer ? recipientOf(customer, channel) : null;
          if (!customer || !recipient) {
            outcomes.push({ skipped: true });
            continue;
          }
          messages.push({
            id: itemRecordId(env.operationId, index),
            operationId: env.operationId,
            channel,
            customerId: customer.id,
            recipient,
            subject: payload.subject === undefined ? null : render(payload.subject, customer),
            body: render(payload.body, customer),
          });
          outcomes.push({ ok: true });
        }
        await env.addMessages(messages);
        return outcomes;
      },
    },
  });
}

export const MESSAGE_KINDS: readonly KindDefinition[] = [messageKind('CUSTOMERS_EMAIL', 'EMAIL'), messageKind('CUSTOMERS_TEXT', 'SMS')];
