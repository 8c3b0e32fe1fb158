import { SETTING_NAMES, settingDefaults } from './config.js';
import { SETTING_HELP } from './config-help.js';

/**
 * server/README.md's configuration table, made from the settings themselves (config.ts: names,
 * order, defaults; config-help.ts: meanings), so the documentation cannot drift from the code.
 * `npm run docs:config` writes it between the markers; test/docs.test.ts fails when they differ.
 */
export const TABLE_START = '<!-- config-table: written by `npm run docs:config` from server/config.ts; do not edit by hand -->';
export const TABLE_END = '<!-- /config-table -->';

export function configTable(): string {
  const defaults = settingDefaults();
  const rows = SETTING_NAMES.map((name) => {
    const help = SETTING_HELP[name];
    return `| \`${name}\` | ${defaultCell(defaults[name], help.whenUnset)} | ${help.meaning.replace(/\|/g, '\\|')} |`;
  });
  return ['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}

function defaultCell(value: unknown, whenUnset = 'unset'): string {
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return whenUnset;
  return `\`${Array.isArray(value) ? value.join(',') : String(value)}\``;
}

/** The document with the table between its markers replaced by the current one. */
export function withConfigTable(document: string): string {
  const [start, end] = [document.indexOf(TABLE_START), document.indexOf(TABLE_END)];
  if (start < 0 || end < start) throw new Error(`the document has no configuration table markers (${TABLE_START} ... ${TABLE_END})`);
  return `${document.slice(0, start + TABLE_START.length)}\n${configTable()}\n${document.slice(end)}`;
}

/** The table now between the markers (null without markers). */
export function configTableIn(document: string): string | null {
  const [start, end] = [document.indexOf(TABLE_START), document.indexOf(TABLE_END)];
  if (start < 0 || end < start) return null;
  return document.slice(start + TABLE_START.length, end).trim();
}
