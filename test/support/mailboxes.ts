import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/**
 * Where sent messages land in tests: a real SMTP server (smtp-server) whose mail is parsed back
 * (mailparser), and an HTTP endpoint standing in for the SMS webhook. `refuse` makes the SMTP
 * server turn every message away (550), as an outage of the mail provider would; `hold(address)`
 * leaves a message to that address unanswered (a slow mail server) until `release(address)`.
 */
export interface Mailbox {
  smtpUrl: string;
  mails: ParsedMail[];
  refuse: boolean;
  hold(address: string): void;
  release(address: string): void;
  close(): Promise<void>;
}

export async function startMailbox(): Promise<Mailbox> {
  const held = new Map<string, (() => void)[]>();
  const box: Mailbox = {
    smtpUrl: '',
    mails: [],
    refuse: false,
    hold: (address) => void held.set(address.toLowerCase(), held.get(address.toLowerCase()) ?? []),
    release: (address) => {
      const waiting = held.get(address.toLowerCase()) ?? [];
      held.delete(address.toLowerCase());
      for (const go of waiting) go();
    },
    close: async () => {},
  };
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onRcptTo(address, _session, callback) {
      const answer = () => callback(box.refuse ? Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 }) : undefined);
      const waiting = held.get(address.address.toLowerCase());
      if (waiting) waiting.push(answer);
      else answer();
    },
    onData(stream, _session, callback) {
      simpleParser(stream).then((mail) => {
        box.mails.push(mail);
        callback();
      }, callback);
    },
  });
  // A client that vanishes (a server process killed with its pooled connections open) resets its
  // connection: a mail server notes it and goes on.
  smtp.on('error', () => {});
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', () => resolve()));
  box.smtpUrl = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}?ignoreTLS=true`;
  box.close = () => new Promise<void>((resolve) => smtp.close(() => resolve()));
  return box;
}

export interface SmsInbox {
  url: string;
  texts: { to: string; body: string; messageId: string; at: number }[];
  close(): Promise<void>;
}

export async function startSmsInbox(): Promise<SmsInbox> {
  const texts: SmsInbox['texts'] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk)).on('end', () => {
      texts.push({ ...(JSON.parse(body) as { to: string; body: string; messageId: string }), at: Date.now() });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sms`,
    texts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
