import { fileOf, runsOf, type FontFace, type Weight } from './fonts.js';

/**
 * Text set on a pdfkit page with font fallback: pdfkit draws a string in one font, so each line is
 * cut into runs (fonts.ts) and the runs are drawn side by side. Lines are wrapped here, by width as
 * the fonts measure it, so a table knows a cell's height before it draws the cell: at spaces, and
 * between any two Chinese or Japanese characters (those scripts have no spaces to break at).
 */
export interface TextStyle {
  size: number;
  weight: Weight;
  color: string;
}

export interface TextLine {
  text: string;
  width: number;
}

/** Line height for a size: room for CJK ascenders and Latin descenders alike. */
export const lineHeight = (size: number) => size * 1.4;

const registered = new WeakMap<PDFKit.PDFDocument, Set<string>>();

/**
 * Selects a face on the document, registering it on first use (pdfkit embeds only what is drawn).
 * pdfkit is given the face's parsed font (it takes a fontkit font as well as bytes), not its bytes:
 * from bytes it would parse the font again for every document, and decoding the layout tables
 * (GSUB, GPOS) anew was most of a small PDF's time. One parsed font serves every document of the
 * thread; each document still embeds its own subset.
 */
function useFace(doc: PDFKit.PDFDocument, face: FontFace): void {
  let names = registered.get(doc);
  if (!names) registered.set(doc, (names = new Set()));
  if (!names.has(face.name)) {
    doc.registerFont(face.name, fileOf(face).font as unknown as PDFKit.Mixins.PDFFontSource);
    names.add(face.name);
  }
  doc.font(face.name);
}

/** Width of a string in the style, its runs measured each in its own face. */
export function widthOf(doc: PDFKit.PDFDocument, text: string, style: TextStyle): number {
  let width = 0;
  for (const run of runsOf(text, style.weight)) {
    useFace(doc, run.face);
    width += doc.fontSize(style.size).widthOfString(run.text);
  }
  return width;
}

/** Break opportunities: runs of spaces, single CJK characters, and everything between them. */
const TOKENS = /\s+|[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303f\uff00-\uffef]|[^\s\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303f\uff00-\uffef]+/gu;

/**
 * Wraps text to lines no wider than `width` (a word wider than that is cut between characters).
 * Each word is measured once and a line's width is the sum of its words' and spaces' (no kerning
 * is lost: there is none across a space, and CJK text has no kerning pairs to speak of).
 */
export function wrapText(doc: PDFKit.PDFDocument, text: string, style: TextStyle, width: number): TextLine[] {
  const widths = new Map<string, number>();
  const measure = (token: string) => {
    let w = widths.get(token);
    if (w === undefined) widths.set(token, (w = widthOf(doc, token, style)));
    return w;
  };
  const space = measure(' ');
  const lines: TextLine[] = [];
  for (const paragraph of text.split(/\r\n|\r|\n/)) {
    let line = { text: '', width: 0 };
    let pendingSpace = false;
    const flush = () => {
      lines.push(line);
      line = { text: '', width: 0 };
      pendingSpace = false;
    };
    const add = (token: string, w: number) => {
      const gap = pendingSpace && line.text ? space : 0;
      line = { text: line.text + (gap ? ' ' : '') + token, width: line.width + gap + w };
      pendingSpace = false;
    };
    for (const token of paragraph.match(TOKENS) ?? []) {
      if (/^\s+$/.test(token)) {
        pendingSpace = true;
        continue;
      }
      const w = measure(token);
      if (line.width + (pendingSpace && line.text ? space : 0) + w <= width) {
        add(token, w);
        continue;
      }
      if (line.text) flush();
      if (w <= width) {
        add(token, w);
        continue;
      }
      for (const char of token) {
        const cw = measure(char);
        if (line.text && line.width + cw > width) flush();
        add(char, cw);
      }
    }
    flush();
  }
  return lines;
}

/** Draws one wrapped line at (x, y), left- or right-aligned within `width`. */
export function drawLine(doc: PDFKit.PDFDocument, line: TextLine, x: number, y: number, style: TextStyle, align: 'left' | 'right' = 'left', width = line.width): void {
  let cursor = align === 'right' ? x + width - line.width : x;
  for (const run of runsOf(line.text, style.weight)) {
    useFace(doc, run.face);
    doc.fontSize(style.size).fillColor(style.color).text(run.text, cursor, y, { lineBreak: false });
    cursor += doc.widthOfString(run.text);
  }
}

/** Draws text wrapped to `width` from (x, y); returns the y below it. */
export function drawText(doc: PDFKit.PDFDocument, text: string, x: number, y: number, width: number, style: TextStyle, align: 'left' | 'right' = 'left'): number {
  for (const line of wrapText(doc, text, style, width)) {
    drawLine(doc, line, x, y, style, align, width);
    y += lineHeight(style.size);
  }
  return y;
}
