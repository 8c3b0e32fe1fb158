import nodemailer from 'nodemailer';
import type { OutboxMessage } from '../storage/outgoing-messages.js';

/**
 * Sends what bulk operations and visit reports put in the outbox: email through SMTP (nodemailer)
 * when SMTP_URL is set, texts by POSTing `{to, body, messageId}` to SMS_WEBHOOK_URL when set. A
 * channel without a sender is not sent: its messages stay in the outbox as STORED.
 */
export interface Messenger {
  canSend(channel: OutboxMessage['channel']): boolean;
  send(message: OutgoingMessage): Promise<void>;
  /** Closes the SMTP connections kept open (see MAIL_CONNECTIONS). */
  close(): void;
}

/** What is sent: the outbox row's fields, with copies (`cc`) and files attached to an email. */
export type OutgoingMessage = Pick<OutboxMessage, 'id' | 'channel' | 'recipient' | 'subject' | 'body' | 'html' | 'senderName' | 'replyTo'> &
  Partial<Pick<OutboxMessage, 'cc'>> & { attachments?: readonly MessageAttachment[] };

/** A file sent with an email (an invoice's PDF). */
export interface MessageAttachment {
  filename: string;
  content: Buffer;
  contentType: string;
}

export interface MessengerConfig {
  smtpUrl?: string;
  emailFrom: string;
  smsWebhookUrl?: string;
}

/** EMAIL_FROM's address under the organization's name, when the message names one. */
function fromOf(emailFrom: string, senderName: string | null): string | { name: string; address: string } {
  if (!senderName) return emailFrom;
  return { name: senderName, address: /<([^<>]+)>\s*$/.exec(emailFrom)?.[1] ?? emailFrom.trim() };
}

/**
 * SMTP connections kept open and shared by the messages sent, rather than one connection (its
 * greeting, EHLO and, against a real provider, TLS and AUTH) per message: up to MAIL_CONNECTIONS at
 * once, each used for MAIL_MESSAGES messages before a fresh one, closed by nodemailer after 4
 * minutes idle. Settings in SMTP_URL's query (`?pool=false`, `maxConnections=2`) take precedence.
 */
const MAIL_CONNECTIONS = 4;
const MAIL_MESSAGES = 100;

export function createMessenger(config: MessengerConfig): Messenger {
  const mail = config.smtpUrl ? nodemailer.createTransport({ url: config.smtpUrl, pool: true, maxConnections: MAIL_CONNECTIONS, maxMessages: MAIL_MESSAGES }) : null;
  return {
    canSend: (channel) => (channel === 'EMAIL' ? mail !== null : Boolean(config.smsWebhookUrl)),
    async send(message) {
      if (message.channel === 'EMAIL') {
        if (!mail) throw new Error('no SMTP server configured');
        await mail.sendMail({
          from: fromOf(config.emailFrom, message.senderName),
          to: message.recipient,
          subject: message.subject ?? '',
          text: message.body,
          ...(message.html ? { html: message.html } : {}),
          ...(message.replyTo ? { replyTo: message.replyTo } : {}),
          ...(message.cc ? { cc: message.cc } : {}),
          ...(message.attachments?.length ? { attachments: message.attachments.map((a) => ({ filename: a.filename, content: a.content, contentType: a.contentType })) } : {}),
        });
        return;
      }
      if (!config.smsWebhookUrl) throw new Error('no SMS webhook configured');
      // A webhook that never answers must not hold the worker: the send has a deadline of its own.
      const deadline = new AbortController();
      const timer = setTimeout(() => deadline.abort(new Error('SMS webhook did not answer within 30 s')), 30_000);
      try {
        const res = await fetch(config.smsWebhookUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ to: message.recipient, body: message.body, messageId: message.id }),
          signal: deadline.signal,
        });
        await res.body?.cancel();
        if (!res.ok) throw new Error(`SMS webhook answered HTTP ${res.status}`);
      } finally {
        clearTimeout(timer);
      }
    },
    close: () => mail?.close(),
  };
}
