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
  {
    files: 'client-sdk/replica',
    forbidden: ['client-sdk/replication', 'client-sdk/uploads', 'client-sdk/actions', 'client-sdk/app-kit', 'client-sdk/office-app', 'client-sdk/technician-app', 'client-sdk/client.ts'],
    why: 'the replica (the device database and its storage) is the lowest SDK layer: sync, uploads and apps build on it',
  },
];

/** The folders whose files may not import each other in a circle (a cycle hides which file is the lower layer). */
const CYCLE_ROOTS = ['shared', 'server', 'client-sdk'];

/** Outside server/storage, no file sends SQL: a `.query(` or `.exec(` call on a string is a statement. */
const SQL_CALL = /\.(?:query|exec)(?:<[^>]*>)?\(\s*[`'"]/;

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

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
      for (const match of read(file).matchAll(IMPORT)) {
        const specifier = match[1] ?? match[2]!;
        const broken = breaks(rule, target(file, specifier));
        if (broken) problems.push(`${file} imports '${specifier}': ${rule.files}/ may not import ${broken} (${rule.why})`);
      }
    }
  }
  return problems;
}

/** Every project file each file imports (type imports too), resolved to project paths. */
function importGraph(roots: string[], read: (file: string) => string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of roots.flatMap(sourceFiles)) {
    const targets = [...read(file).matchAll(IMPORT)].map((m) => target(file, m[1] ?? m[2]!)).filter((t) => t.includes('/') && /\.tsx?$/.test(t));
    graph.set(file, targets.map((t) => (fs.existsSync(path.join(ROOT, t)) ? t : t.replace(/\.ts$/, '.tsx'))));
  }
  return graph;
}

/** Each import cycle once, as the files around it (`a -> b -> a`). */
export function importCycles(roots: string[] = CYCLE_ROOTS, read: (file: string) => string = (f) => fs.readFileSync(path.join(ROOT, f), 'utf8')): string[] {
  const graph = importGraph(roots, read);
  const cycles = new Set<string>();
  const state = new Map<string, 'open' | 'done'>();
  const trail: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    trail.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') {
        const ring = trail.slice(trail.indexOf(next));
        const start = ring.indexOf([...ring].sort()[0]!);
        const canonical = [...ring.slice(start), ...ring.slice(0, start)];
        cycles.add([...canonical, canonical[0]].join(' -> '));
      } else if (!state.has(next) && graph.has(next)) visit(next);
    }
    trail.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return [...cycles].sort();
}

/** Files outside server/storage that send SQL themselves. */
export function sqlOutsideStorage(read: (file: string) => string = (f) => fs.readFileSync(path.join(ROOT, f), 'utf8')): string[] {
  return sourceFiles('server')
    .filter((file) => !file.startsWith(`server${path.sep}storage${path.sep}`))
    .filter((file) => SQL_CALL.test(read(file)));
}

describe('layering', () => {
  it('no import runs against the layers', () => {
    expect(layeringViolations()).toEqual([]);
  });

  it('no two files import each other in a circle', () => {
    expect(importCycles()).toEqual([]);
  });

  it('a planted cycle is caught and named by its files', () => {
    const planted = (file: string) => {
      const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
      return file === 'server/operations/sync/doc.ts' ? `import type { Clash } from './merge.js';\n${text}` : text;
    };
    expect(importCycles(['server/operations'], planted)).toEqual(['server/operations/sync/doc.ts -> server/operations/sync/merge.ts -> server/operations/sync/doc.ts']);
  });

  it('SQL is sent only from server/storage', () => {
    expect(sqlOutsideStorage()).toEqual([]);
    const planted = (file: string) => (file === 'server/operations/customers.ts' ? "await tx.query('select 1')" : fs.readFileSync(path.join(ROOT, file), 'utf8'));
    expect(sqlOutsideStorage(planted)).toEqual(['server/operations/customers.ts']);
  });

  it('the replica imports nothing of sync, uploads or the apps', () => {
    const planted = (file: string) => {
      const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
      return file === 'client-sdk/replica/database.ts' ? `import { PendingChanges } from '../replication/pending-changes.js';\n${text}` : text;
    };
    expect(layeringViolations(RULES, planted)).toEqual([
      "client-sdk/replica/database.ts imports '../replication/pending-changes.js': client-sdk/replica/ may not import client-sdk/replication (the replica (the device database and its storage) is the lowest SDK layer: sync, uploads and apps build on it)",
    ]);
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
