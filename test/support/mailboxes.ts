import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/**
 * Where sent messages land in tests: a real SMTP server (smtp-server) whose mail is parsed back
 * (mailparser), and an HTTP endpoint standing in for the SMS webhook. `refuse` makes the SMTP
 * server turn every message away (550), as an outage of the mail provider would.
 */
export interface Mailbox {
  smtpUrl: string;
  mails: ParsedMail[];
  refuse: boolean;
  close(): Promise<void>;
}

export async function startMailbox(): Promise<Mailbox> {
  const box: Mailbox = { smtpUrl: '', mails: [], refuse: false, close: async () => {} };
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onRcptTo(_address, _session, callback) {
      callback(box.refuse ? Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 }) : undefined);
    },
    onData(stream, _session, callback) {
      simpleParser(stream).then((mail) => {
        box.mails.push(mail);
        callback();
      }, callback);
    },
  });
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
