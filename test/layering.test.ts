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
