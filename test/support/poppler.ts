import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * Debian's poppler-utils read generated PDFs back the way a person's viewer would: `pdftotext` for
 * the text, `pdfinfo` for the page count, `pdfimages` for the images drawn, `pdftoppm` for a page as PNG. `.ci/run` installs them;
 * elsewhere the tests that need them are skipped unless REQUIRE_POPPLER is set.
 */
export const POPPLER = existsSync('/usr/bin/pdftotext') || Boolean(process.env.REQUIRE_POPPLER);

const run = promisify(execFile);

async function withPdfFile<T>(pdf: Buffer, use: (file: string, dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pool-pdf-'));
  try {
    const file = path.join(dir, 'document.pdf');
    await writeFile(file, pdf);
    return await use(file, dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The PDF's text as pdftotext reads it (in reading order, pages separated by form feeds). */
export const pdfText = (pdf: Buffer) => withPdfFile(pdf, async (file) => (await run('pdftotext', ['-enc', 'UTF-8', file, '-'])).stdout);

/** The text laid out as on the page (`pdftotext -layout`): rows in order top to bottom, columns side by side. */
export const pdfLayoutText = (pdf: Buffer) => withPdfFile(pdf, async (file) => (await run('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-'])).stdout);

export const pdfPages = (pdf: Buffer) =>
  withPdfFile(pdf, async (file) => Number(/Pages:\s+(\d+)/.exec((await run('pdfinfo', [file])).stdout)?.[1]));

/** How many images the PDF draws (`pdfimages -list` rows of type image; a PNG's alpha is a further smask row). */
export const pdfImageCount = (pdf: Buffer) =>
  withPdfFile(pdf, async (file) => (await run('pdfimages', ['-list', file])).stdout.split('\n').filter((row) => row.trim().split(/\s+/)[2] === 'image').length);

/** Page `page` as a PNG at `dpi`. */
export const pdfPagePng = (pdf: Buffer, page = 1, dpi = 72) =>
  withPdfFile(pdf, async (file, dir) => {
    await run('pdftoppm', ['-png', '-r', String(dpi), '-f', String(page), '-l', String(page), '-singlefile', file, path.join(dir, 'page')]);
    return readFile(path.join(dir, 'page.png'));
  });
