import fs from 'node:fs';
import path from 'node:path';
import { Marked, type Tokens } from 'marked';

/**
 * The project's documentation as /docs serves it: the README at /docs/, and every Markdown file or
 * picture the README reaches by relative links, at /docs/<its path in the project>. Served under
 * their own paths, the documents' relative links work in a browser as they do in the repository
 * (server/README.md's `../shared/...` is /docs/shared/...), and headings carry the ids their
 * in-page links name.
 *
 * Only what the documents link to is served: the set of files is the links' closure from the
 * README, worked out once, so no other file under the project folder (a data folder, its photos)
 * can be asked for by name.
 */
const SERVED = /\.(?:md|png|jpe?g|svg)$/i;

export class DocsSite {
  private files: Map<string, string> | null = null;
  private readonly pages = new Map<string, string>();
  private readonly marked = new Marked({ renderer: { heading: headingWithId } });

  constructor(private readonly root: string) {}

  /** The absolute file behind a path under /docs/ ('' is the README), or null when it is not one of the documents. */
  fileAt(urlPath: string): string | null {
    return this.documents().get(urlPath === '' ? 'README.md' : urlPath) ?? null;
  }

  /** A Markdown document as HTML (cached; the documents do not change while the server runs). */
  page(file: string): string {
    let html = this.pages.get(file);
    if (html === undefined) {
      html = this.marked.parse(fs.readFileSync(file, 'utf8'), { async: false });
      this.pages.set(file, html);
    }
    return html;
  }

  /** Every file reachable from the README by relative links, by its path in the project. */
  private documents(): Map<string, string> {
    if (this.files) return this.files;
    const found = new Map<string, string>();
    const visit = (relative: string) => {
      const file = path.join(this.root, relative);
      if (found.has(relative) || !fs.existsSync(file)) return;
      found.set(relative, file);
      if (!relative.endsWith('.md')) return;
      for (const target of this.linksOf(fs.readFileSync(file, 'utf8'), path.posix.dirname(relative))) visit(target);
    };
    visit('README.md');
    this.files = found;
    return found;
  }

  /** The project paths a document's relative links and pictures point at, inside the project only. */
  private linksOf(markdown: string, from: string): string[] {
    const targets: string[] = [];
    this.marked.walkTokens(this.marked.lexer(markdown), (token) => {
      if (token.type !== 'link' && token.type !== 'image') return;
      const href = (token as Tokens.Link | Tokens.Image).href.split('#')[0]!;
      if (!href || /^[a-z][\w+.-]*:/i.test(href) || href.startsWith('/')) return;
      const target = path.posix.normalize(path.posix.join(from, decodeURIComponent(href)));
      if (target.startsWith('..') || target.split('/').includes('node_modules') || !SERVED.test(target)) return;
      targets.push(target);
    });
    return targets;
  }
}

/** A heading with the id GitHub gives it, so `[Limits](#limits)` finds it on the page too. */
function headingWithId(this: { parser: { parseInline(tokens: Tokens.Generic[]): string } }, { tokens, depth, text }: Tokens.Heading): string {
  return `<h${depth} id="${slugOf(text)}">${this.parser.parseInline(tokens)}</h${depth}>\n`;
}

function slugOf(text: string): string {
  return text
    .toLowerCase()
    .replace(/<[^>]*>|[`*_]/g, '')
    .replace(/[^\p{L}\p{N}\- ]/gu, '')
    .replace(/ /g, '-');
}
