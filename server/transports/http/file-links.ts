import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';

/**
 * Signed, expiring links to stored files, served by GET /files/<key>, and to quotes' generated
 * PDFs, served by GET /quote-pdfs/<orgId>/<quoteId>/<hash>.pdf (made on first fetch). An <img> tag
 * or a third party fetches them without a header; a changed key, expiry or signature, or a link
 * past its expiry, is refused. Links go through this server with either blob store, so the rule is
 * the same with MinIO and with local files.
 *
 * @example
 *   links.urlFor('org/o1/logo-3', 'https://api.example.com')
 *   // https://api.example.com/files/org/o1/logo-3?expires=1795000000&signature=...
 */
export interface FileLinks {
  urlFor(key: string, baseUrl: string): string;
  /** True when the signature matches the key and expiry and the expiry has not passed. */
  isValid(key: string, expires: string | undefined, signature: string | undefined): boolean;
  quotePdfUrl(pdf: GeneratedPdfRef, baseUrl: string): string;
  isValidQuotePdf(pdf: GeneratedPdfRef, expires: string | undefined, signature: string | undefined): boolean;
  /** An invoice's PDF, made as the invoice is when the link is fetched (GET /invoice-pdfs/<orgId>/<invoiceId>.pdf). */
  invoicePdfUrl(pdf: InvoicePdfRef, baseUrl: string): string;
  isValidInvoicePdf(pdf: InvoicePdfRef, expires: string | undefined, signature: string | undefined): boolean;
}

/** An invoice's PDF as its link names it. */
export interface InvoicePdfRef {
  orgId: string;
  invoiceId: string;
}

/** A quote's generated PDF as its link names it: the quote and the hash of what the PDF shows. */
export interface GeneratedPdfRef {
  orgId: string;
  quoteId: string;
  contentHash: string;
}

export function fileLinks(secret: string, ttlSeconds: number, now: () => number = Date.now): FileLinks {
  // Each kind of link signs its own subject; a file key never contains a newline, so no signature
  // of one kind is a valid signature of the other.
  const sign = (subject: string, expires: string) => createHmac('sha256', secret).update(`${subject}\n${expires}`).digest('base64url');
  const pdfSubject = (pdf: GeneratedPdfRef) => `quote-pdf\n${pdf.orgId}\n${pdf.quoteId}\n${pdf.contentHash}`;
  const invoiceSubject = (pdf: InvoicePdfRef) => `invoice-pdf\n${pdf.orgId}\n${pdf.invoiceId}`;
  const query = (subject: string) => {
    const expires = String(Math.floor(now() / 1000) + ttlSeconds);
    return `expires=${expires}&signature=${sign(subject, expires)}`;
  };
  const valid = (subject: string, expires: string | undefined, signature: string | undefined) => {
    if (!expires || !signature || !/^\d{1,12}$/.test(expires)) return false;
    if (Number(expires) * 1000 < now()) return false;
    const expected = Buffer.from(sign(subject, expires));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given);
  };
  return {
    urlFor(key, baseUrl) {
      const path = key.split('/').map(encodeURIComponent).join('/');
      return `${baseUrl}/files/${path}?${query(key)}`;
    },
    isValid: valid,
    quotePdfUrl(pdf, baseUrl) {
      const path = [pdf.orgId, pdf.quoteId, `${pdf.contentHash}.pdf`].map(encodeURIComponent).join('/');
      return `${baseUrl}/quote-pdfs/${path}?${query(pdfSubject(pdf))}`;
    },
    isValidQuotePdf: (pdf, expires, signature) => valid(pdfSubject(pdf), expires, signature),
    invoicePdfUrl(pdf, baseUrl) {
      const path = [pdf.orgId, `${pdf.invoiceId}.pdf`].map(encodeURIComponent).join('/');
      return `${baseUrl}/invoice-pdfs/${path}?${query(invoiceSubject(pdf))}`;
    },
    isValidInvoicePdf: (pdf, expires, signature) => valid(invoiceSubject(pdf), expires, signature),
  };
}

/** Where links should point: PUBLIC_URL when set, else the host the client called. */
export function baseUrlOf(req: Request, publicUrl: string | undefined): string {
  return publicUrl ?? `${req.protocol}://${req.get('host')}`;
}
