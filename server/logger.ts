import { pino, type DestinationStream, type Logger } from 'pino';

/**
 * Structured JSON logs on stdout (pipe through `npx pino-pretty` to read them in a terminal).
 * `destination` replaces stdout (tests read the lines the server writes).
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { service: 'pool-service' },
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], censor: '[redacted]' },
  };
  return destination ? pino(options, destination) : pino(options);
}
