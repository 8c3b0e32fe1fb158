import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';

/**
 * Signed, expiring links to stored files, served by GET /files/<key>. An <img> tag or a third
 * party fetches them without a header; a changed key, expiry or signature, or a link past its
 * expiry, is refused. Links go through this server with either blob store, so the rule is the
 * same with MinIO and with local files.
 *
 * @example
 *   links.urlFor('org/o1/logo-3', 'https://api.example.com')
 *   // https://api.example.com/files/org/o1/logo-3?expires=1795000000&signature=...
 */
export interface FileLinks {
  urlFor(key: string, baseUrl: string): string;
  /** True when the signature matches the key and expiry and the expiry has not passed. */
  isValid(key: string, expires: string | undefined, signature: string | undefined): boolean;
}

export function fileLinks(secret: string, ttlSeconds: number, now: () => number = Date.now): FileLinks {
  const sign = (key: string, expires: string) => createHmac('sha256', secret).update(`${key}\n${expires}`).digest('base64url');
  return {
    urlFor(key, baseUrl) {
      const expires = String(Math.floor(now() / 1000) + ttlSeconds);
      const path = key.split('/').map(encodeURIComponent).join('/');
      return `${baseUrl}/files/${path}?expires=${expires}&signature=${sign(key, expires)}`;
    },
    isValid(key, expires, signature) {
      if (!expires || !signature || !/^\d{1,12}$/.test(expires)) return false;
      if (Number(expires) * 1000 < now()) return false;
      const expected = Buffer.from(sign(key, expires));
      const given = Buffer.from(signature);
      return expected.length === given.length && timingSafeEqual(expected, given);
    },
  };
}

/** Where links should point: PUBLIC_URL when set, else the host the client called. */
export function baseUrlOf(req: Request, publicUrl: string | undefined): string {
  return publicUrl ?? `${req.protocol}://${req.get('host')}`;
}
