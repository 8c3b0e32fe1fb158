import fs from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configTable, configTableIn, withConfigTable } from '../server/config-table.js';
import { SETTING_NAMES } from '../server/config.js';
import { ROOT } from './support/child.js';
import { docProblems, type DocProblem } from './support/doc-check.js';

/** The documentation says what the code does, and a reader of the repository can follow all of it. */
describe('documentation', () => {
  it("server/README.md's configuration table is the one config.ts gives (npm run docs:config writes it)", () => {
    const readme = fs.readFileSync(path.join(ROOT, 'server', 'README.md'), 'utf8');
    const table = configTableIn(readme);
    expect(table, 'server/README.md has no configuration table markers').not.toBeNull();
    expect(table, 'the table differs from server/config.ts: run npm run docs:config').toBe(configTable());
    for (const name of SETTING_NAMES) expect(table).toContain(`| \`${name}\` |`);
  });

  it('a table edited by hand, or a setting missing from it, is told', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'server', 'README.md'), 'utf8');
    const edited = readme.replace('| `PORT` | `4000` |', '| `PORT` | `8080` |');
    expect(configTableIn(edited)).not.toBe(configTable());
    const dropped = readme.replace(/^\| `HOST` .*\n/m, '');
    expect(configTableIn(dropped)).not.toBe(configTable());
    expect(configTableIn(withConfigTable(dropped))).toBe(configTable());
  });

  it('names no issue numbers and no paths outside the repository, in any Markdown file or code comment', () => {
    const problems = docProblems(ROOT);
    expect(problems.map(describeProblem)).toEqual([]);
  }, 60_000);

  describe('the check itself, on planted lines', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'doc-check-'));
    afterAll(() => rmSync(root, { recursive: true, force: true }));
    const plant = (file: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      fs.writeFileSync(path.join(root, file), text);
    };
    plant(
      'README.md',
      [
        '# A project', // 1
        'Fixed in issue 12.', // 2
        'See issues 25 and 30 for the rest.', // 3
        'Closes #41.', // 4
        'Read ../shared/DESIGN.md first.', // 5
        'The notes in /work/shared/research are good.', // 6
        'Pictures are in docs/ beside this.', // 7
        'Fine: nodejs/undici#4232, [the office](#office-app), colour #1b1f24, server/README.md, [up](server/../README.md).', // 8
        'Also [the design](DESIGN.md), and PR 7.', // 9
      ].join('\n'),
    );
    plant('server/README.md', 'The sync protocol: [it](../shared/sync/README.md); not [this](../../elsewhere/notes.md).\n');
    plant('shared/sync/README.md', '# Sync\n');
    plant(
      'server/code.ts',
      [
        "/** The rule (issue 9). */", // 1
        "const gate = '#1000'; // a gate code, data", // 2
        "const url = 'https://example.com/#12'; // see /work/main", // 3
        "const re = /\\/\\/ issue 5/; /* a regex holds no comment */", // 4
        "export { gate, url, re };", // 5
      ].join('\n'),
    );
    plant('server/storage/migrations/0001.sql', "-- kept since #3\nselect '#4 issue 4';\n");
    plant('.ci/run', '#!/usr/bin/env bash\n# runs what issue 8 asked\necho "#9"\n');

    it('finds each, naming the file and the line', () => {
      const found = docProblems(root).map((p) => `${p.file}:${p.line}`);
      expect(new Set(found)).toEqual(
        new Set([
          'README.md:2',
          'README.md:3',
          'README.md:4',
          'README.md:5',
          'README.md:6',
          'README.md:7',
          'README.md:9',
          'server/README.md:1',
          'server/code.ts:1',
          'server/code.ts:3',
          'server/storage/migrations/0001.sql:1',
          '.ci/run:2',
        ]),
      );
    });

    it('says what is wrong', () => {
      const told = docProblems(root).map(describeProblem).join('\n');
      expect(told).toContain('README.md:3: names an issue or pull request ("issues 25")');
      expect(told).toContain('README.md:5: points outside the repository ("../shared/DESIGN.md")');
      expect(told).toContain('README.md:9: names a document the repository does not hold ("DESIGN.md")');
      expect(told).toContain('server/README.md:1: points outside the repository ("../../elsewhere/notes.md")');
      expect(told).not.toContain('("../shared/sync/README.md")');
      expect(told).not.toContain('("server/../README.md")');
    });
  });
});

function describeProblem(p: DocProblem): string {
  return `${p.file}:${p.line}: ${p.problem}: ${p.text}`;
}
