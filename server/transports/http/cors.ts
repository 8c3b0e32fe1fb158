import cors from 'cors';
import type { RequestHandler } from 'express';
import { PROTOCOL_VERSION_HEADER, PUSH_CHECKPOINT_HEADER, SYNC_STREAM_HEADER } from '../../../shared/index.js';

/**
 * CORS for browser apps served from other origins (CORS_ORIGINS). Credentials are a Bearer token
 * the app sends itself, never a cookie, so `Access-Control-Allow-Credentials` is never sent and a
 * page on an unlisted origin can neither read answers nor ride on a user's session. Preflights
 * are cached for two hours (Chromium's ceiling), so a browser asks once, not before every push.
 */
export function allowOrigins(origins: readonly string[]): RequestHandler | null {
  if (origins.length === 0) return null;
  return cors({
    origin: origins.includes('*') ? '*' : [...origins],
    credentials: false,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Accept', 'Last-Event-ID', 'Idempotency-Key', PROTOCOL_VERSION_HEADER],
    // What a browser app must be able to read: when to retry, how much budget is left, file names.
    exposedHeaders: ['Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Content-Disposition', 'Location', 'Idempotent-Replayed', PUSH_CHECKPOINT_HEADER, SYNC_STREAM_HEADER],
    maxAge: 7200,
  });
}
