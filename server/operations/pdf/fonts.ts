import { create, type Font } from 'fontkit';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { sfntOfWoff } from './woff.js';

/**
 * The fonts generated documents are set in, from npm packages (Fontsource's Noto families), so a
 * fresh `npm ci` renders accented, Chinese, Japanese and Korean names and emoji with nothing
 * installed from the system. Fontsource splits each family into files by Unicode range (its CSS
 * says which file to look in for a character); a character is set in the first family, in the
 * order below, whose file has its glyph, and only the files a document uses are embedded, subset
 * by pdfkit to the glyphs it uses.
 *
 * WOFF files, not WOFF2: fontkit (pdfkit's font engine) reads both, but its WOFF2 decoder has had
 * glyph-transform bugs, and WOFF is plain zlib over the same tables, unwrapped once per process.
 *
 * Emoji are set in Noto Emoji, a monochrome outline font (PDF text cannot carry colour bitmaps);
 * a character no family covers is set as REPLACEMENT, a visible box.
 */
const FAMILIES = [
  'noto-sans', // Latin, Greek, Cyrillic, Vietnamese, Devanagari
  'noto-sans-sc', // Chinese (simplified and most traditional), Japanese kana and kanji
  'noto-sans-kr', // Korean hangul (the Chinese font holds only a few dozen syllables)
  'noto-emoji', // monochrome emoji
] as const;

export type Weight = 400 | 700;

/** One file of a family: a font to register with pdfkit under `name`. */
export interface FontFace {
  name: string;
  file: string;
  ranges: readonly (readonly [number, number])[];
}

export const REPLACEMENT = '\u25A1';

const require = createRequire(import.meta.url);
const faces = new Map<Weight, FontFace[]>();

/** The faces of every family at a weight, in fallback order (read once from the packages' CSS). */
export function facesOf(weight: Weight): FontFace[] {
  let list = faces.get(weight);
  if (!list) {
    list = FAMILIES.flatMap((family) => familyFaces(family, weight));
    faces.set(weight, list);
  }
  return list;
}

function familyFaces(family: string, weight: Weight): FontFace[] {
  const folder = path.dirname(require.resolve(`@fontsource/${family}/package.json`));
  const css = readFileSync(path.join(folder, `${weight}.css`), 'utf8');
  const found: FontFace[] = [];
  // Each @font-face: url(./files/<name>.woff) format('woff'); unicode-range: U+0000-00ff,U+0131,...
  for (const match of css.matchAll(/url\(\.\/files\/([^)]+)\.woff\) format\('woff'\);\s*unicode-range:\s*([^;]+);/g)) {
    found.push({ name: match[1]!, file: path.join(folder, 'files', `${match[1]}.woff`), ranges: parseRanges(match[2]!) });
  }
  if (!found.length) throw new Error(`No font files found for @fontsource/${family} at weight ${weight}`);
  return found;
}

function parseRanges(text: string): [number, number][] {
  return text.split(',').map((part) => {
    const [from, to] = part.trim().replace(/^U\+/i, '').split('-');
    const start = parseInt(from!, 16);
    return [start, to === undefined ? start : parseInt(to, 16)];
  });
}

/**
 * The face holding a character, or null when no family has it. A file's Unicode range is where to
 * look, not a promise: the Chinese files' ranges name some Korean syllables they have no glyph
 * for, so the glyph itself is checked.
 */
export function faceFor(codePoint: number, weight: Weight): FontFace | null {
  const key = codePoint * 1000 + weight;
  let face = chosen.get(key);
  if (face === undefined) chosen.set(key, (face = facesOf(weight).find((f) => covers(f, codePoint)) ?? null));
  return face;
}

/** The face found for each character and weight so far (a document asks for the same ones often). */
const chosen = new Map<number, FontFace | null>();

const loaded = new Map<string, { bytes: Buffer; font: Font }>();

/**
 * A face's font, read and parsed once per process (fontkit, the engine pdfkit embeds fonts with),
 * as plain OpenType bytes for pdfkit (see woff.ts).
 */
export function fileOf(face: FontFace): { bytes: Buffer; font: Font } {
  let file = loaded.get(face.file);
  if (!file) {
    const bytes = sfntOfWoff(readFileSync(face.file));
    loaded.set(face.file, (file = { bytes, font: create(bytes) as Font }));
  }
  return file;
}

/** A stretch of text set in one face. */
export interface TextRun {
  face: FontFace;
  text: string;
}

/**
 * Zero-width joiners, variation selectors and combining marks stay with the character before them
 * (an accent on its letter, an emoji's presentation selector on the emoji).
 */
const ATTACHED = /[\u0300-\u036f\u200d\ufe00-\ufe0f\u{1f3fb}-\u{1f3ff}]/u;

/** Splits text into runs by the face each character is set in; uncovered characters become REPLACEMENT. */
export function runsOf(text: string, weight: Weight): TextRun[] {
  const runs: TextRun[] = [];
  const fallback = faceFor(REPLACEMENT.codePointAt(0)!, weight)!;
  for (const char of text) {
    const last = runs.at(-1);
    if (ATTACHED.test(char)) {
      // Kept when its base's face has it; otherwise dropped rather than shown as a box of its own.
      if (last && covers(last.face, char.codePointAt(0)!)) last.text += char;
      continue;
    }
    // The character after a zero-width joiner completes the emoji sequence in the emoji's own face.
    const joined = last && last.text.endsWith('\u200d') && covers(last.face, char.codePointAt(0)!) ? last.face : null;
    const face = joined ?? faceFor(char.codePointAt(0)!, weight);
    const [setIn, shown] = face ? [face, char] : [fallback, REPLACEMENT];
    if (last?.face === setIn) last.text += shown;
    else runs.push({ face: setIn, text: shown });
  }
  return runs;
}

function covers(face: FontFace, codePoint: number): boolean {
  return face.ranges.some(([from, to]) => codePoint >= from && codePoint <= to) && fileOf(face).font.hasGlyphForCodePoint(codePoint);
}
