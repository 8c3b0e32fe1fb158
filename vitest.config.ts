import { defineConfig } from 'vitest/config';
import LongestFirst from './test/support/sequencer.js';

// PGlite takes a few seconds to start, and some tests spawn the real server: generous timeouts.
export default defineConfig({
  resolve: {
    // graphql 16 ships CJS (index.js) and ESM (index.mjs). Node loads index.js for everyone,
    // but Vite would hand our sources index.mjs: two graphql instances, and instanceof checks
    // across them fail. Pin the one Node uses.
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/build-app.ts', 'test/support/pglite-dump.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: more workers than that only adds contention between PGlite instances.
    maxWorkers: 2,
    sequence: { sequencer: LongestFirst },
  },
});
