import type PDFDocument from 'pdfkit';
import type { TextStyle } from './pdf-text.js';

/**
 * What the generated documents (quotes, invoices) share: the page's margin and colours, the text
 * styles, collecting pdfkit's output, and the writing position that starts a new page when what
 * comes next does not fit.
 */
export const MARGIN = 50;
export const INK = '#1f2933';
export const MUTED = '#52606d';
export const RULE = '#cbd2d9';
export const BAND = '#eef2f6';

export const body: TextStyle = { size: 10, weight: 400, color: INK };
export const small: TextStyle = { size: 8.5, weight: 400, color: MUTED };
export const strong: TextStyle = { ...body, weight: 700 };
export const heading: TextStyle = { size: 11, weight: 700, color: INK };

/** Logos pdfkit can place; a WebP or HEIC logo is left out rather than failing the document. */
export const PDF_IMAGE_TYPES = ['image/jpeg', 'image/png'];

export interface Logo {
  bytes: Buffer;
  contentType: string;
}

/** Letter paper where the organization's time zone is in the Americas, A4 elsewhere. */
export const paperOf = (timezone: string) => (timezone.startsWith('America/') ? 'LETTER' : 'A4');

/** The document's bytes once it has ended. */
export function collect(doc: PDFKit.PDFDocument): Promise<Buffer> {
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  return new Promise((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
}

/** The writing position, and new pages when what comes next does not fit. */
export class Page {
  y = MARGIN;
  readonly left = MARGIN;
  readonly width: number;
  private readonly bottom: number;
  /** Drawn at the top of each new page (the table's header while the table runs). */
  onNewPage: (() => void) | null = null;

  constructor(readonly doc: InstanceType<typeof PDFDocument>) {
    this.width = doc.page.width - 2 * MARGIN;
    // Room for the footer below.
    this.bottom = doc.page.height - MARGIN - 20;
  }

  /** Starts a new page unless `height` more fits on this one. */
  ensure(height: number): void {
    if (this.y + height <= this.bottom) return;
    this.doc.addPage();
    this.y = MARGIN;
    this.onNewPage?.();
  }
}
