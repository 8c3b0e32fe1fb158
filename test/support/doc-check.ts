import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * What a reader of the repository cannot follow, found in its prose: every Markdown file, and the
 * comments of code (*.ts, *.tsx, *.mjs, *.sql, *.css, .ci/run). Two kinds:
 * - an issue or pull-request number: the word (issue, issues, PR, pull request) followed by a
 *   number, or a hash sign followed by one. The tracker is not in the repository. A reference
 *   into another project (owner/repo, a hash sign, a number) is fine: anyone can look that up.
 * - a path outside the repository: the machine's own work folder, a relative path that climbs
 *   above the root, a Markdown file named that exists nowhere in the repository, or a top-level
 *   documentation folder the repository does not have.
 * Strings in code are not prose and are not read (a gate code is data).
 * test/docs.test.ts plants one of each to show they are found.
 */
export interface DocProblem {
  file: string;
  line: number;
  problem: string;
  text: string;
}

const SKIPPED_FOLDERS = new Set(['node_modules', '.git', 'dist', 'data', 'test-output', 'coverage', 'scratch']);
const CODE = /\.(?:ts|tsx|mts|mjs|js)$/;

export function docProblems(root: string): DocProblem[] {
  const files = filesUnder(root);
  const known = new Set(files.map((f) => path.basename(f)));
  const hasDocsFolder = fs.existsSync(path.join(root, 'docs'));
  const problems: DocProblem[] = [];
  for (const file of files) {
    const relative = path.relative(root, file).split(path.sep).join('/');
    // Only a file whose raw text holds a problem somewhere needs its comments told from its code.
    const raw = fs.readFileSync(file, 'utf8');
    if (!raw.split('\n').some((text) => problemsIn(text, { root, file, known, hasDocsFolder }).length)) continue;
    for (const { line, text } of proseOf(file, raw)) {
      for (const problem of problemsIn(text, { root, file, known, hasDocsFolder })) problems.push({ file: relative, line, problem, text: text.trim().slice(0, 160) });
    }
  }
  return problems;
}

function filesUnder(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name) && (!entry.name.startsWith('.') || entry.name === '.ci')) walk(full);
      } else if (/\.(?:md|ts|tsx|mts|mjs|js|sql|css)$/.test(entry.name) || path.relative(root, full) === path.join('.ci', 'run')) {
        found.push(full);
      }
    }
  };
  walk(root);
  return found;
}

/** The lines of a file a reader reads as prose: all of a Markdown file, the comments of code. */
function proseOf(file: string, text: string): { line: number; text: string }[] {
  if (file.endsWith('.md')) return text.split('\n').map((t, i) => ({ line: i + 1, text: t }));
  const ranges = CODE.test(file) ? codeComments(file, text) : file.endsWith('.sql') ? sqlComments(text) : file.endsWith('.css') ? blockComments(text) : shellComments(text);
  return ranges.flatMap(([start, end]) => {
    const first = lineAt(text, start);
    return text.slice(start, end).split('\n').map((t, i) => ({ line: first + i, text: t }));
  });
}

/** Comment ranges as the TypeScript parser sees them (a `//` inside a string or a regex is not one). */
function codeComments(file: string, text: string): [number, number][] {
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : /\.(?:mjs|js)$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, kind);
  const seen = new Map<number, number>();
  const take = (ranges: ts.CommentRange[] | undefined) => ranges?.forEach((r) => seen.set(r.pos, r.end));
  const visit = (node: ts.Node) => {
    take(ts.getLeadingCommentRanges(text, node.getFullStart()));
    take(ts.getTrailingCommentRanges(text, node.getEnd()));
    node.getChildren(source).forEach(visit);
  };
  visit(source);
  return [...seen.entries()];
}

function sqlComments(text: string): [number, number][] {
  return [...text.matchAll(/--[^\n]*|\/\*[\s\S]*?\*\//g)].map((m) => [m.index!, m.index! + m[0].length]);
}

function blockComments(text: string): [number, number][] {
  return [...text.matchAll(/\/\*[\s\S]*?\*\//g)].map((m) => [m.index!, m.index! + m[0].length]);
}

/** A shell script's comments: from a `#` that starts a word to the end of its line. */
function shellComments(text: string): [number, number][] {
  return [...text.matchAll(/(?:^|(?<=\s))#[^\n]*/gm)].map((m) => [m.index!, m.index! + m[0].length]);
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

interface Where {
  root: string;
  file: string;
  known: Set<string>;
  hasDocsFolder: boolean;
}

const ISSUE_WORD = /\b(?:issues?|PRs?|pull requests?)\s+#?\d+/gi;
/** A hash sign and a number alone; preceded by owner/repo (a reference anyone can follow) it is not matched. */
const BARE_NUMBER = /(?<![\w/.-])#\d+(?![\w-])/g;
/** A path with a `..` in it, taken whole (`server/../README.md` climbs nowhere). */
const RELATIVE_PATH = /(?<![\w.\-/])[\w.\-/]*\.\.\/[\w.\-/]*/g;
const MARKDOWN_NAME = /[\w.\-/]*?([\w.-]+\.md)\b/g;
const DOCS_FOLDER = /(?<![\w./-])docs\//g;
const MACHINE_PATH = /(?<![\w.-])\/work\//;

function problemsIn(line: string, where: Where): string[] {
  const problems: string[] = [];
  for (const m of line.matchAll(ISSUE_WORD)) problems.push(`names an issue or pull request ("${m[0]}"), which no reader of the repository can look up`);
  for (const m of line.matchAll(BARE_NUMBER)) problems.push(`names an issue by number ("${m[0]}"), which no reader of the repository can look up`);
  if (MACHINE_PATH.test(line)) problems.push('names a path on the machine it was written on');
  for (const m of line.matchAll(RELATIVE_PATH)) {
    const target = path.resolve(path.dirname(where.file), m[0]);
    if (path.relative(where.root, target).startsWith('..')) problems.push(`points outside the repository ("${m[0]}")`);
  }
  for (const m of line.matchAll(MARKDOWN_NAME)) {
    if (!where.known.has(m[1]!)) problems.push(`names a document the repository does not hold ("${m[0]}")`);
  }
  if (!where.hasDocsFolder && DOCS_FOLDER.test(line)) problems.push('names a docs/ folder, which the repository does not have');
  DOCS_FOLDER.lastIndex = 0;
  return problems;
}
