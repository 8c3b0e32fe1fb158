import type { RequestHandler } from 'express';
import helmet from 'helmet';
import { PAGE_STYLE_HASH } from './front-page.js';

/**
 * Security headers on every answer (helmet): a Content-Security-Policy that lets a page load only
 * this server's own scripts, styles, images and connections (the bundled office and technician
 * apps, GraphiQL, the docs: nothing comes from a CDN), no framing by anyone (clickjacking), no
 * MIME sniffing, no referrer (a signed file link is a credential), the opener isolated.
 *
 * What the pages need beyond `'self'`, and why:
 * - images from `data:`: the office's QR codes, and the photos a technician's phone still holds
 *   in its upload queue; and from PUBLIC_URL when file links point there;
 * - the one style block of the first screen, the docs and the explorer page, by its hash.
 * No inline script, no eval (the apps tell zod not to try: client-sdk/app-kit/no-eval.ts), and no
 * inline style beyond that block.
 * Left out on purpose: `upgrade-insecure-requests` and HSTS, which belong to whatever terminates
 * TLS in front (server/README.md, Behind a proxy): a phone on the shop's network may reach the
 * server over plain HTTP, and an upgrade to HTTPS there would break every request.
 *
 * Signed file links (`/files/...`) may be shown by an app on another origin (CORS_ORIGINS) in an
 * `<img>`, and a visit report's photos and logo (`/reports/<token>/photos/<id>`, `.../logo`) by the
 * customer's mail client, on the mail service's origin: they are the answers another origin may
 * embed (Cross-Origin-Resource-Policy). Without it a webmail reader shows the report's images as
 * broken.
 * They carry no page policy: a stored file is an image or a PDF by its bytes (never HTML or SVG,
 * and never sniffed), and a policy on a PDF only risks the browser's own viewer.
 */
const REPORT_IMAGE = /^\/reports\/[^/]+\/(?:photos\/[^/]+|logo)$/;
/** The logo in an invoice's email, under its link (`/invoice/<token>/logo`), for the same reason. */
const INVOICE_IMAGE = /^\/invoice\/[^/]+\/logo$/;
const embeddable = (path: string) => path.startsWith('/files/') || REPORT_IMAGE.test(path) || INVOICE_IMAGE.test(path);

export function securityHeaders({ publicUrl }: { publicUrl: string | undefined }): RequestHandler {
  const fileOrigin = publicUrl ? [new URL(publicUrl).origin] : [];
  const pagePolicy = {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      baseUri: ["'self'"],
      connectSrc: ["'self'", ...fileOrigin],
      fontSrc: ["'self'", 'data:'],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
      imgSrc: ["'self'", 'data:', ...fileOrigin],
      manifestSrc: ["'self'"],
      objectSrc: ["'none'"],
      scriptSrc: ["'self'"],
      scriptSrcAttr: ["'none'"],
      styleSrc: ["'self'", PAGE_STYLE_HASH],
      workerSrc: ["'self'"],
    },
  };
  const common = { frameguard: { action: 'deny' }, strictTransportSecurity: false } as const;
  const pages = helmet({ ...common, contentSecurityPolicy: pagePolicy, crossOriginResourcePolicy: { policy: 'same-origin' } });
  const files = helmet({ ...common, contentSecurityPolicy: false, crossOriginResourcePolicy: { policy: 'cross-origin' } });
  return (req, res, next) => (embeddable(req.path) ? files : pages)(req, res, next);
}
