import { formatSettings, reportSettings } from './config-report.js';

/** `npm run config`: prints every setting, its value and its source (secrets masked). */
try {
  console.log(formatSettings(reportSettings()));
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
