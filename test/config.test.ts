import { describe, expect, it } from 'vitest';
import { loadConfig } from '../server/config.js';
import { formatSettings, reportSettings } from '../server/config-report.js';
import { SYNC_PROTOCOL_VERSION } from '../shared/index.js';

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

  it('SYNC_MIN_PROTOCOL_VERSION defaults to 0 (every client served) and refuses a floor above the protocol this server speaks', () => {
    expect(loadConfig({}).sync.minProtocolVersion).toBe(0);
    expect(loadConfig({ SYNC_MIN_PROTOCOL_VERSION: String(SYNC_PROTOCOL_VERSION) }).sync.minProtocolVersion).toBe(SYNC_PROTOCOL_VERSION);
    for (const bad of [String(SYNC_PROTOCOL_VERSION + 1), '-1', '0.5', 'latest']) {
      expect(() => loadConfig({ SYNC_MIN_PROTOCOL_VERSION: bad }), bad).toThrow(/SYNC_MIN_PROTOCOL_VERSION/);
    }
  });

  it('CORS_ORIGINS takes exact origins (or *), and refuses a path or a bare word by name', () => {
    expect(loadConfig({}).http.corsOrigins).toEqual([]);
    expect(loadConfig({ CORS_ORIGINS: 'https://app.example.com, http://127.0.0.1:5173/' }).http.corsOrigins).toEqual([
      'https://app.example.com',
      'http://127.0.0.1:5173',
    ]);
    expect(loadConfig({ CORS_ORIGINS: '*' }).http.corsOrigins).toEqual(['*']);
    for (const bad of ['app.example.com', 'https://app.example.com/path', 'https://a.example.com,nope']) {
      expect(() => loadConfig({ CORS_ORIGINS: bad }), bad).toThrow(/CORS_ORIGINS/);
    }
  });

  it('the limits have defaults and refuse nonsense by name', () => {
    const { http } = loadConfig({});
    expect(http).toMatchObject({ rateLimitPerMinute: 600, syncRateLimitPerMinute: 6000, maxStreamsPerToken: 8, requestTimeoutMs: 30_000, graphqlMaxDepth: 12, graphqlMaxCost: 10_000, compression: true });
    expect(() => loadConfig({ GRAPHQL_MAX_DEPTH: '1' })).toThrow(/GRAPHQL_MAX_DEPTH/);
    expect(() => loadConfig({ RATE_LIMIT_PER_MINUTE: '-5' })).toThrow(/RATE_LIMIT_PER_MINUTE/);
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN/);
  });

  it('TRUST_PROXY defaults to loopback and takes false, true, a hop count or addresses and subnets; anything else by name', () => {
    expect(loadConfig({}).http.trustProxy).toEqual(['loopback']);
    expect(loadConfig({ TRUST_PROXY: 'false' }).http.trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '2' }).http.trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.20,::1,uniquelocal' }).http.trustProxy).toEqual(['10.0.0.0/8', '192.168.1.20', '::1', 'uniquelocal']);
    for (const bad of ['nginx', '10.0.0.0/33', '300.1.1.1', '10.0.0.1/8/2']) {
      expect(() => loadConfig({ TRUST_PROXY: bad }), bad).toThrow(/TRUST_PROXY/);
    }
    expect(loadConfig({}).http.authFailuresPerMinute).toBe(60);
    expect(() => loadConfig({ AUTH_FAILURES_PER_MINUTE: 'many' })).toThrow(/AUTH_FAILURES_PER_MINUTE/);
  });

  it('npm run config lists every setting with its value and source, secrets masked', () => {
    const env = {
      PORT: '8080',
      DATABASE_URL: 'postgres://pool:hunter22@db.internal:5432/pool',
      PLATFORM_ADMIN_TOKEN: 'a-very-secret-admin-token',
      METRICS_TOKEN: 'another-secret-metrics-token',
    };
    const rows = reportSettings(env);
    const byName = Object.fromEntries(rows.map((r) => [r.name, r]));
    expect(byName.PORT).toEqual({ name: 'PORT', value: '8080', source: 'environment' });
    expect(byName.HOST).toEqual({ name: 'HOST', value: '127.0.0.1', source: 'default' });
    expect(byName.S3_ENDPOINT).toEqual({ name: 'S3_ENDPOINT', value: '', source: 'unset' });
    expect(byName.DATABASE_URL!.value).toBe('postgres://pool:********@db.internal:5432/pool');
    const printed = formatSettings(rows);
    for (const secret of ['hunter22', 'a-very-secret-admin-token', 'another-secret-metrics-token']) expect(printed).not.toContain(secret);
    expect(printed).toMatch(/METRICS_TOKEN +\*+ \(set\) +\[environment\]/);
    expect(() => reportSettings({ PORT: 'eighty' })).toThrow(/PORT/);
  });
});
