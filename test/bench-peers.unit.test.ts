import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { endsWithThisProcess, ROOT, waitForOutput } from './support/child.js';
import { isLoopback, listeningAddresses, processTree } from './bench/peers/process-tree.js';
import { workloadColumns } from './bench/peers/zero-upstream.js';

/**
 * What keeps `npm run bench:peers` on this machine: the shim zero-cache's processes preload
 * (a server asking for every interface gets 127.0.0.1), and the check of every socket a process
 * tree listens on. And the columns Zero's table is made of.
 */
const SHIM = path.join(ROOT, 'test/bench/peers/zero-listen-loopback.cjs');

// A parent that listens in the ways zero-cache's servers do (fastify's `{ host: '::' }` among
// them), then forks a child that listens too, as zero-cache forks its workers.
const SERVERS = `
const http = require('node:http');
const net = require('node:net');
const { fork } = require('node:child_process');
const listening = (s) => new Promise((r) => s.once('listening', r));
(async () => {
  if (process.argv[2] === 'child') {
    const s = net.createServer();
    s.listen(0, '0.0.0.0');
    await listening(s);
    process.send('up');
    return;
  }
  const servers = [http.createServer(), http.createServer(), net.createServer()];
  servers[0].listen({ host: '::', port: 0 });
  servers[1].listen(0);
  servers[2].listen(() => {});
  await Promise.all(servers.map(listening));
  const child = fork(__filename, ['child']);
  child.once('message', () => console.log('ready ' + child.pid));
})();
`;

let folder: string | undefined;
afterEach(async () => {
  if (folder) await rm(folder, { recursive: true, force: true });
  folder = undefined;
});

describe('the loopback shim and the listening check', () => {
  it('moves every TCP listen of a process and of the processes it forks to 127.0.0.1', async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'peers-shim-'));
    const script = path.join(folder, 'servers.cjs');
    await writeFile(script, SERVERS);
    const parent = endsWithThisProcess(spawn(process.execPath, [script], { env: { ...process.env, NODE_OPTIONS: `--require ${SHIM}` }, stdio: ['ignore', 'pipe', 'pipe'] }));
    try {
      const forked = Number(/ready (\d+)/.exec(await waitForOutput(parent, /ready \d+/))![1]);
      expect(await processTree(parent.pid!)).toContain(forked);
      const addresses = await listeningAddresses(parent.pid!);
      expect(addresses).toHaveLength(4);
      expect(addresses.filter((a) => !isLoopback(a))).toEqual([]);
      expect(addresses.every((a) => a.startsWith('127.0.0.1:'))).toBe(true);
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('tells the loopback from every other address, as /proc/net spells them', () => {
    expect(isLoopback('127.0.0.1:4848')).toBe(true);
    expect(isLoopback('127.1.2.3:80')).toBe(true);
    expect(isLoopback('0000:0000:0000:0000:0000:0000:0000:0001:4848')).toBe(true);
    expect(isLoopback('0000:0000:0000:0000:0000:ffff:7f00:0001:4848')).toBe(true);
    expect(isLoopback('0.0.0.0:4848')).toBe(false);
    expect(isLoopback('192.0.2.2:4848')).toBe(false);
    expect(isLoopback('0000:0000:0000:0000:0000:0000:0000:0000:4848')).toBe(false);
    expect(isLoopback('0000:0000:0000:0000:0000:ffff:c000:0202:4848')).toBe(false);
  });
});

describe("Zero's table for the workload", () => {
  it('makes a column of every field, typed by its non-null values, id first', async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'peers-columns-'));
    const file = path.join(folder, 'visits.jsonl');
    const docs = [
      { _id: 'a', notes: 'x', chemistryVersion: 1, photos: [], done: true, dateEmailed: null, mixed: 1 },
      { _id: 'b', notes: null, chemistryVersion: null, photos: [{ id: 'p' }], done: false, dateEmailed: null, mixed: 'one' },
    ];
    await writeFile(file, docs.map((d) => JSON.stringify(d)).join('\n') + '\n');
    expect(await workloadColumns(file)).toEqual([
      { name: 'id', type: 'string' },
      { name: 'notes', type: 'string' },
      { name: 'chemistryVersion', type: 'number' },
      { name: 'photos', type: 'json' },
      { name: 'done', type: 'boolean' },
      { name: 'dateEmailed', type: 'string' },
      { name: 'mixed', type: 'json' },
    ]);
  });
});
