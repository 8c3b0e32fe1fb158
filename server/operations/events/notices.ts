import type { Database } from '../../storage/db.js';
import { addMessages } from '../../storage/outgoing-messages.js';
import { disableEndpoint, noticeRecipients, type WebhookEndpointRow } from '../../storage/webhook-endpoints.js';
import { newId } from '../ids.js';

/**
 * Disables an endpoint and tells the organization, in one transaction: the office app shows the
 * endpoint disabled with its reason, and an email goes to the organization's address (else its
 * ADMINs') through the outgoing messages, kept STORED when no mail server is configured. Done
 * once: an endpoint already disabled is left as it is. Returns the endpoint when this disabled it.
 */
export async function disableWithNotice(db: Database, orgId: string, endpointId: string, reason: string, canEmail: boolean): Promise<WebhookEndpointRow | null> {
  return db.transaction(async (tx) => {
    const endpoint = await disableEndpoint(tx, orgId, endpointId, reason);
    if (!endpoint) return null;
    const { name, emails } = await noticeRecipients(tx, orgId);
    await addMessages(
      tx,
      orgId,
      emails.map((recipient) => ({
        id: newId(),
        operationId: `notice:webhook-disabled:${endpoint.id}:${endpoint.disabledAt}`,
        channel: 'EMAIL' as const,
        customerId: null,
        recipient,
        subject: `Webhook endpoint disabled: ${endpoint.url}`,
        body: noticeText(name, endpoint, reason),
        status: canEmail ? ('PENDING' as const) : ('STORED' as const),
      })),
    );
    return endpoint;
  });
}

function noticeText(organization: string, endpoint: WebhookEndpointRow, reason: string): string {
  return [
    `${organization}: events are no longer sent to the webhook endpoint ${endpoint.url}${endpoint.description ? ` (${endpoint.description})` : ''}.`,
    '',
    `Why: ${reason}`,
    '',
    'Its deliveries still waiting were stopped. Once the receiver works again, enable the endpoint under Settings, Integrations',
    '(or updateWebhookEndpoint with enabled: true): it receives the events from then on. What happened meanwhile is in the',
    'event feed (infiniteEvents, 30 days), and any event can be sent again with redeliverEvent.',
  ].join('\n');
}
