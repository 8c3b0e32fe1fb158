import { pino, type Logger } from 'pino';

/** Structured JSON logs on stdout (pipe through `npx pino-pretty` to read them in a terminal). */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'pool-service' },
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], censor: '[redacted]' },
  });
}
