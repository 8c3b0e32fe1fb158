import { SECRET_SETTINGS, SETTING_NAMES, URL_SETTINGS, loadConfig, settingDefaults } from './config.js';

/**
 * `npm run config` / `npm start -- --help`: every setting with the value this environment gives
 * it and where that came from, so an operator can check a deployment without reading code.
 * Secrets are never printed; URLs are printed with their password masked.
 */
export interface SettingReport {
  name: string;
  value: string;
  source: 'environment' | 'default' | 'unset';
}

export function reportSettings(env: NodeJS.ProcessEnv = process.env): SettingReport[] {
  loadConfig(env); // refuses an invalid environment exactly as the start does
  const defaults = settingDefaults();
  return SETTING_NAMES.map((name) => {
    const raw = env[name];
    if (raw !== undefined && raw !== '') return { name, value: shown(name, raw), source: 'environment' };
    const fallback = defaults[name];
    if (fallback === undefined || (Array.isArray(fallback) && fallback.length === 0)) {
      return { name, value: '', source: 'unset' };
    }
    return { name, value: String(fallback), source: 'default' };
  });
}

export function formatSettings(rows: SettingReport[]): string {
  const width = Math.max(...rows.map((r) => r.name.length));
  const lines = rows.map((r) => `${r.name.padEnd(width)}  ${r.source === 'unset' ? '(unset)' : r.value}  [${r.source}]`);
  return ['Settings (environment variables; server/README.md, Configuration, says what each does):', '', ...lines].join('\n');
}

function shown(name: string, value: string): string {
  if (SECRET_SETTINGS.has(name)) return '******** (set)';
  if (URL_SETTINGS.has(name)) return withoutPassword(value);
  return value;
}

function withoutPassword(value: string): string {
  try {
    const url = new URL(value);
    if (url.password) url.password = '********';
    return url.toString();
  } catch {
    return value;
  }
}
