import * as z from 'zod';

/**
 * The apps run under the server's Content-Security-Policy, which allows no eval. zod's compiled
 * fast path probes `new Function` once, and a browser refuses that probe and reports it as a
 * policy violation. Told up front, zod validates without compiling (what it falls back to when
 * the probe fails anyway). Imported first by each app's entry, before any schema is used.
 */
z.config({ jitless: true });
