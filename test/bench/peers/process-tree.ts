import { readdir, readFile, readlink } from 'node:fs/promises';

/**
 * A server that is several processes (zero-cache forks its replicator, change-streamer and sync
 * workers), read through /proc: which processes it is, their memory together, and where they
 * listen.
 */

/** The process and every process under it, by their parent ids in /proc/<pid>/stat. */
export async function processTree(root: number): Promise<number[]> {
  const parents = new Map<number, number[]>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // The command name (2nd field) is in parentheses and may hold spaces: the parent id is the
    // second field after the last ')'.
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (!parent) continue;
    parents.set(parent, [...(parents.get(parent) ?? []), Number(entry)]);
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) tree.push(...(parents.get(tree[i]!) ?? []));
  return tree;
}

/** One /proc/<pid>/status field in MB, 0 for a process that has ended. */
async function statusMb(pid: number, field: 'VmRSS' | 'VmHWM'): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kb = new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1];
  return kb ? Number(kb) / 1024 : 0;
}

/** The RSS of the tree's processes added up, now (VmRSS) or each at its own peak (VmHWM). */
export async function treeMb(root: number, field: 'VmRSS' | 'VmHWM'): Promise<{ mb: number; processes: number }> {
  const pids = await processTree(root);
  const each = await Promise.all(pids.map((pid) => statusMb(pid, field)));
  return { mb: each.reduce((a, b) => a + b, 0), processes: each.filter((mb) => mb > 0).length };
}

/**
 * The largest RSS of the tree taken together, sampled every `everyMs` until stopped: its
 * processes do not peak at the same moment, so adding their peaks would overstate it. The tree is
 * listed again every tenth sample (listing reads every process's stat; zero-cache forks its
 * workers at the start and keeps them). `stop()` may be called more than once.
 */
export function sampleTreePeak(root: number, everyMs = 250): { stop(): Promise<{ peakMb: number; processes: number }> } {
  let peak = { mb: 0, processes: 0 };
  let pids: number[] = [root];
  let samples = 0;
  let sampling = Promise.resolve();
  const sample = () =>
    (sampling = sampling.then(async () => {
      if (samples++ % 10 === 0) pids = await processTree(root);
      const each = await Promise.all(pids.map((pid) => statusMb(pid, 'VmRSS')));
      const mb = each.reduce((a, b) => a + b, 0);
      if (mb > peak.mb) peak = { mb, processes: each.filter((v) => v > 0).length };
    }));
  const timer = setInterval(sample, everyMs);
  void sample();
  let stopped: Promise<{ peakMb: number; processes: number }> | undefined;
  return {
    stop: () =>
      (stopped ??= (async () => {
        clearInterval(timer);
        await sample();
        return { peakMb: peak.mb, processes: peak.processes };
      })()),
  };
}

/** Every TCP address the tree's processes listen on (from /proc/net/tcp and tcp6), as `host:port`. */
export async function listeningAddresses(root: number): Promise<string[]> {
  const inodes = new Set<string>();
  for (const pid of await processTree(root)) {
    const fds = await readdir(`/proc/${pid}/fd`).catch(() => []);
    for (const fd of fds) {
      const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode) inodes.add(inode);
    }
  }
  const addresses: string[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const lines = (await readFile(table, 'utf8').catch(() => '')).trim().split('\n').slice(1);
    for (const line of lines) {
      const fields = line.trim().split(/\s+/);
      // local_address is field 1, st field 3 (0A: LISTEN), inode field 9.
      if (fields[3] === '0A' && inodes.has(fields[9]!)) addresses.push(decodeAddress(fields[1]!));
    }
  }
  return addresses;
}

/** /proc/net's hex `address:port`, each 32-bit word of the address in host (little-endian) order. */
function decodeAddress(hex: string): string {
  const [address, port] = hex.split(':') as [string, string];
  const words = address.match(/.{8}/g)!.map((word) => Buffer.from(word, 'hex').reverse());
  const bytes = Buffer.concat(words);
  const host = bytes.length === 4 ? [...bytes].join('.') : (bytes.toString('hex').match(/.{4}/g)!.join(':'));
  return `${host}:${parseInt(port, 16)}`;
}

/** True for 127.0.0.0/8, ::1 and IPv4-mapped 127.x, in decodeAddress's spelling. */
export function isLoopback(address: string): boolean {
  const host = address.slice(0, address.lastIndexOf(':'));
  return host.startsWith('127.') || host === '0000:0000:0000:0000:0000:0000:0000:0001' || host.startsWith('0000:0000:0000:0000:0000:ffff:7f');
}
