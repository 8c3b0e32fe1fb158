import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/child.js';

/**
 * The layering (shared -> storage -> operations -> transports), checked rather than described:
 * every import of every source file is resolved and held against the rules below. A wrong import
 * fails here with the file, the import and the rule it breaks.
 */
interface Rule {
  /** Files the rule applies to (a folder under the project root). */
  files: string;
  /** What they may not import: a folder under the root (`server/`) or a package name. */
  forbidden: string[];
  why: string;
}

const RULES: Rule[] = [
  { files: 'shared', forbidden: ['server', 'client-sdk', 'test'], why: 'shared/ is the definitions both sides build on; it depends on neither' },
  { files: 'server/storage', forbidden: ['server/operations', 'server/transports', 'server/jobs', 'server/app.ts', 'express', 'graphql'], why: 'storage is the lowest server layer' },
  {
    files: 'server/operations',
    forbidden: ['server/transports', 'server/jobs', 'server/app.ts', 'express', 'graphql', 'graphql-http', 'multer', 'pino-http'],
    why: 'operations are the domain rules, free of any transport',
  },
  { files: 'server/jobs', forbidden: ['server/transports', 'server/app.ts', 'express', 'graphql'], why: 'jobs run rules, not requests' },
  { files: 'client-sdk', forbidden: ['server', 'test'], why: 'the SDK runs on devices and never sees server code' },
];

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g;

function specifiersOf(text: string): string[] {
  return [...text.matchAll(IMPORT)].map((match) => match[1] ?? match[2] ?? match[3]!);
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'dist' && entry.name !== 'node_modules') out.push(...sourceFiles(relative));
    } else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
      out.push(relative);
    }
  }
  return out;
}

/** An import as the rules see it: a project path (`server/storage/db.ts`) or a package name. */
function target(file: string, specifier: string): string {
  if (!specifier.startsWith('.')) {
    const parts = specifier.split('/');
    return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
  }
  return path.normalize(path.join(path.dirname(file), specifier)).replace(/\.js$/, '.ts');
}

function breaks(rule: Rule, imported: string): string | undefined {
  return rule.forbidden.find((f) => imported === f || imported.startsWith(`${f}/`));
}

export function layeringViolations(rules: Rule[] = RULES, read: (file: string) => string = (f) => fs.readFileSync(path.join(ROOT, f), 'utf8')): string[] {
  const problems: string[] = [];
  for (const rule of rules) {
    for (const file of sourceFiles(rule.files)) {
      for (const specifier of specifiersOf(read(file))) {
        const broken = breaks(rule, target(file, specifier));
        if (broken) problems.push(`${file} imports '${specifier}': ${rule.files}/ may not import ${broken} (${rule.why})`);
      }
    }
  }
  return problems;
}

/**
 * Import cycles, over the whole tree: modules that import each other (through any number of
 * others) cannot be read, tested or moved apart. Type-only imports count too: they tie the two
 * files' meaning together all the same. The cycles listed here were there when the check came and
 * are to be untied; a new one fails, and so does a listed one that is gone (remove it here).
 */
const CYCLE_ROOTS = ['shared', 'server', 'client-sdk', 'test'];
const KNOWN_CYCLES: string[][] = [
  ['client-sdk/replica/capture.ts', 'client-sdk/replication/replica-store.ts'],
  ['server/operations/sync/documents.ts', 'server/operations/sync/merge.ts'],
];

/** The project file an import names, if it is one (`./x.js` is `x.ts` or `x.tsx`; a folder its index). */
function resolved(file: string, specifier: string, files: ReadonlySet<string>): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = path.normalize(path.join(path.dirname(file), specifier)).replace(/\.js$/, '');
  return [`${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts'), base].find((candidate) => files.has(candidate));
}

/** Every set of files that import one another, each sorted, sorted by its first file (Tarjan's strongly connected components). */
export function importCycles(roots: string[] = CYCLE_ROOTS, read: (file: string) => string = (f) => fs.readFileSync(path.join(ROOT, f), 'utf8')): string[][] {
  const files = roots.flatMap((root) => sourceFiles(root));
  const known = new Set(files);
  const edges = new Map(files.map((file) => [file, specifiersOf(read(file)).flatMap((s) => resolved(file, s, known) ?? [])]));
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (file: string) => {
    order.set(file, order.size);
    low.set(file, order.get(file)!);
    stack.push(file);
    for (const next of edges.get(file)!) {
      if (!order.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (stack.includes(next)) {
        low.set(file, Math.min(low.get(file)!, order.get(next)!));
      }
    }
    if (low.get(file) !== order.get(file)) return;
    const component = stack.splice(stack.indexOf(file));
    if (component.length > 1 || edges.get(file)!.includes(file)) cycles.push(component.sort());
  };
  for (const file of files) if (!order.has(file)) visit(file);
  return cycles.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

describe('import cycles', () => {
  it('there are none but the known ones', () => {
    expect(importCycles()).toEqual(KNOWN_CYCLES);
  });

  it('a deliberately made cycle is caught, with every file in it', () => {
    const cyclic = (file: string) => {
      const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
      return file === 'server/transports/http/request-context.ts' ? `import type { RequestBudgets } from './rate-limits.js';\n${text}` : text;
    };
    expect(importCycles(CYCLE_ROOTS, cyclic)).toContainEqual(['server/transports/http/rate-limits.ts', 'server/transports/http/request-context.ts']);
  });
});

describe('layering', () => {
  it('no import runs against the layers', () => {
    expect(layeringViolations()).toEqual([]);
  });

  it('a deliberately wrong import is caught, with the rule it breaks', () => {
    const wrong = (file: string) => {
      const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
      return file === 'server/storage/customers.ts' ? `import { listCustomers } from '../operations/customers.js';\n${text}` : text;
    };
    expect(layeringViolations(RULES, wrong)).toEqual([
      "server/storage/customers.ts imports '../operations/customers.js': server/storage/ may not import server/operations (storage is the lowest server layer)",
    ]);
  });
});
