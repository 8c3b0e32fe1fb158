import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './child.js';

/**
 * Debian's nginx as a child process on 127.0.0.1, with the repository's site config
 * (server/deploy/nginx.conf) changed only where a test must: the upstream addresses and the
 * listen line. It runs with a temporary prefix (its pid, logs and temporary files), needs no
 * root, and is stopped by its own pid.
 */
export const NGINX = '/usr/sbin/nginx';
export const SITE_CONFIG = path.join(ROOT, 'server', 'deploy', 'nginx.conf');

export interface Nginx {
  url: string;
  /** The site config as this nginx runs it. */
  site: string;
  close(): Promise<void>;
}

export async function startNginx(upstreams: string[]): Promise<Nginx> {
  const prefix = fs.mkdtempSync(path.join(os.tmpdir(), 'pool-nginx-'));
  const port = await freePort();
  const site = siteFor(fs.readFileSync(SITE_CONFIG, 'utf8'), upstreams, port);
  const temp = (name: string) => `${name}_temp_path ${path.join(prefix, name)};`;
  const config = `
    ${process.getuid?.() === 0 ? 'user root;' : ''}
    worker_processes 1;
    pid ${path.join(prefix, 'nginx.pid')};
    error_log ${path.join(prefix, 'error.log')} warn;
    events { worker_connections 1024; }
    http {
      access_log ${path.join(prefix, 'access.log')};
      ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join('\n      ')}
      ${site}
    }`;
  fs.writeFileSync(path.join(prefix, 'nginx.conf'), config);
  const child = spawn(NGINX, ['-p', prefix, '-c', path.join(prefix, 'nginx.conf'), '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  await listening(port, child, () => `${stderr}${readIfThere(path.join(prefix, 'error.log'))}`);
  return {
    url: `http://127.0.0.1:${port}`,
    site,
    close: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      fs.rmSync(prefix, { recursive: true, force: true });
    },
  };
}

/** The site with the test's upstream servers and listen address; nothing else changed. */
function siteFor(site: string, upstreams: string[], port: number): string {
  const lines = site.split('\n');
  const serverLines = lines.flatMap((line, i) => (/^\s*server \S+;\s*$/.test(line) ? [i] : []));
  const listenLine = lines.findIndex((line) => /^\s*listen 80;\s*$/.test(line));
  if (!serverLines.length || listenLine < 0) throw new Error('server/deploy/nginx.conf no longer has the upstream and listen lines this test replaces');
  lines[listenLine] = `    listen 127.0.0.1:${port};`;
  lines[serverLines[0]!] = upstreams.map((u) => `    server ${u};`).join('\n');
  return lines.filter((_, i) => !serverLines.slice(1).includes(i)).join('\n');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

/** Waits (bounded) until nginx accepts connections; fails with its own words if it exits first. */
async function listening(port: number, child: ChildProcess, log: () => string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (child.exitCode !== null) throw new Error(`nginx exited (${child.exitCode}): ${log()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`nginx did not listen on ${port}: ${log()}`);
}

function readIfThere(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
