import nodemailer from 'nodemailer';
import type { OutboxMessage } from '../storage/outbox.js';

/**
 * Sends what bulk operations put in the outbox: email through SMTP (nodemailer) when SMTP_URL is
 * set, texts by POSTing `{to, body}` to SMS_WEBHOOK_URL when set. A channel without a sender is
 * not sent: its messages stay in the outbox as STORED.
 */
export interface Messenger {
  canSend(channel: OutboxMessage['channel']): boolean;
  send(message: OutboxMessage): Promise<void>;
  close(): void;
}

export interface MessengerConfig {
  smtpUrl?: string;
  emailFrom: string;
  smsWebhookUrl?: string;
}

export function createMessenger(config: MessengerConfig): Messenger {
  const mail = config.smtpUrl ? nodemailer.createTransport(config.smtpUrl) : null;
  return {
    canSend: (channel) => (channel === 'EMAIL' ? mail !== null : Boolean(config.smsWebhookUrl)),
    async send(message) {
      if (message.channel === 'EMAIL') {
        if (!mail) throw new Error('no SMTP server configured');
        await mail.sendMail({ from: config.emailFrom, to: message.recipient, subject: message.subject ?? '', text: message.body });
        return;
      }
      if (!config.smsWebhookUrl) throw new Error('no SMS webhook configured');
      const res = await fetch(config.smsWebhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ to: message.recipient, body: message.body, messageId: message.id }),
      });
      if (!res.ok) throw new Error(`SMS webhook answered HTTP ${res.status}`);
    },
    close: () => mail?.close(),
  };
}
