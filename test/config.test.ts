import { describe, expect, it } from 'vitest';
import { loadConfig } from '../server/config.js';

/** The environment is read in one place; a bad value stops the start with the variable's name. */
describe('configuration', () => {
  it('PGLITE_SHARED_BUFFERS_MB defaults to 32, takes a size in MB, and refuses anything else by name', () => {
    expect(loadConfig({}).pgliteSharedBuffersMb).toBe(32);
    expect(loadConfig({ PGLITE_SHARED_BUFFERS_MB: '128' }).pgliteSharedBuffersMb).toBe(128);
    for (const bad of ['0', 'lots', '1.5', '100000']) {
      expect(() => loadConfig({ PGLITE_SHARED_BUFFERS_MB: bad }), bad).toThrow(/PGLITE_SHARED_BUFFERS_MB/);
    }
  });

  it('SYNC_RECEIPT_DAYS defaults to 30 and refuses anything but whole days by name', () => {
    expect(loadConfig({}).sync.receiptDays).toBe(30);
    expect(loadConfig({ SYNC_RECEIPT_DAYS: '90' }).sync.receiptDays).toBe(90);
    for (const bad of ['0', 'forever', '2.5', '-1']) {
      expect(() => loadConfig({ SYNC_RECEIPT_DAYS: bad }), bad).toThrow(/SYNC_RECEIPT_DAYS/);
    }
  });
});
