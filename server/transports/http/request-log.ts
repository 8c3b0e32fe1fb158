import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';

/**
 * One log line per request (pino-http), with what must not reach a log removed: the
 * Authorization header (the logger's own redaction), the signature of a signed file link and the
 * token of a report page's link (`/reports/<token>`, operations/reports/links.ts) or an invoice's
 * (`/invoice/<token>`, operations/billing/invoice-links.ts). Each is a bearer
 * credential until it expires: whoever reads the log could open the file or the report.
 * Health checks are not logged (a load balancer polls them every few seconds).
 */
export function requestLogger(logger: Logger): RequestHandler {
  return pinoHttp({
    logger,
    autoLogging: { ignore: (req) => req.url === '/healthz' },
    // Applied to pino-http's own serialization of the request (its url, query and the rest).
    serializers: {
      req: (req: { url?: string; query?: Record<string, unknown> }) => {
        if (req.url) req.url = redactedUrl(req.url);
        if (req.query && 'signature' in req.query) req.query = { ...req.query, signature: REDACTED };
        return req;
      },
    },
  });
}

const REDACTED = '[redacted]';

/**
 * The URL with its credentials replaced: `/files/k?expires=1&signature=[redacted]`,
 * `/reports/[redacted]/photos/p`.
 */
export function redactedUrl(url: string): string {
  return url.replace(/([?&]signature=)[^&#]*/gi, `$1${REDACTED}`).replace(/^(\/reports\/|\/invoice\/)[^/?#]+/, `$1${REDACTED}`);
}
