import { spawnSync } from 'node:child_process';
import path from 'node:path';

/**
 * Reading a server's system calls, traced by Debian's strace with
 * `-f -y -e trace=<SYSCALLS>` (every thread, file descriptors shown with their paths), to see
 * whether what it wrote was synced before it answered.
 */
export const TRACED_SYSCALLS = 'fsync,fdatasync,sync_file_range,rename,renameat,renameat2,write,pwrite64,writev';

export const straceAvailable = (): boolean => spawnSync('strace', ['-V'], { stdio: 'ignore' }).status === 0;

export type TraceEvent =
  | { kind: 'write'; path: string }
  | { kind: 'answer'; status: number }
  | { kind: 'sync'; path: string }
  | { kind: 'rename'; to: string };

/**
 * The events of a trace in the order they happened: writes at their start, syncs at their end
 * (strace splits a call another thread interrupts into `<unfinished ...>` and `<... resumed>`).
 * An answer is a write to a socket that starts an HTTP response.
 */
export function traceEvents(trace: string): TraceEvent[] {
  const events: TraceEvent[] = [];
  const unfinished = new Map<string, string>();
  for (const line of trace.split('\n')) {
    const pid = /^(\d+)\s+/.exec(line)?.[1] ?? '';
    const body = line.slice(pid.length).trim();
    const resumed = /^<\.\.\. (\w+) resumed>(.*)$/.exec(body);
    if (resumed) {
      const start = unfinished.get(pid);
      unfinished.delete(pid);
      if (start && /^f(data)?sync\(/.test(start)) pushSync(events, start + resumed[2]);
      continue;
    }
    if (body.endsWith('<unfinished ...>')) {
      const call = body.slice(0, -'<unfinished ...>'.length);
      unfinished.set(pid, call);
      pushWriteOrRename(events, call);
      continue;
    }
    if (/^f(data)?sync\(/.test(body) || body.startsWith('sync_file_range(')) pushSync(events, body);
    else pushWriteOrRename(events, body);
  }
  return events;
}

function pushSync(events: TraceEvent[], call: string): void {
  const match = /^\w+\(\d+<([^>]*)>.*\)\s*=\s*0\s*$/.exec(call);
  if (match) events.push({ kind: 'sync', path: match[1]! });
}

function pushWriteOrRename(events: TraceEvent[], call: string): void {
  const write = /^(?:write|pwrite64|writev)\(\d+<([^>]*)>,\s*(\[\{iov_base=)?"(.{0,16})/.exec(call);
  if (write) {
    const [, target, , data] = write;
    if (target!.startsWith('socket:') || target!.startsWith('TCP')) {
      const status = /^HTTP\/1\.1 (\d{3})/.exec(data!)?.[1];
      if (status) events.push({ kind: 'answer', status: Number(status) });
    } else events.push({ kind: 'write', path: target! });
    return;
  }
  const rename = /^rename(?:at2?)?\(.*"([^"]+)",\s*(?:AT_FDCWD<([^>]*)>,\s*)?"([^"]+)"[^"]*\)\s*=\s*0/.exec(call);
  if (rename) {
    const [, , cwd, to] = rename;
    events.push({ kind: 'rename', to: path.resolve(cwd ?? '/', to!) });
  }
}

/**
 * Why the answer number `index` (0-based, in order of answers) was sent before what led to it was
 * on disk: every file under `watched` written since the answer before it, and not synced after its
 * last write and before the answer; every rename into a watched folder whose folder was not synced
 * after it. Empty when all was synced.
 */
export function unsyncedBeforeAnswer(events: TraceEvent[], index: number, watched: (file: string) => boolean): string[] {
  const answers = events.flatMap((e, i) => (e.kind === 'answer' ? [i] : []));
  const end = answers[index];
  if (end === undefined) throw new Error(`the trace holds ${answers.length} answers, not ${index + 1}`);
  const start = index === 0 ? 0 : answers[index - 1]! + 1;
  const window = events.slice(start, end).map((event, i) => ({ event, at: start + i }));
  const syncedAfter = (file: string, at: number) => events.slice(at + 1, end).some((e) => e.kind === 'sync' && e.path === file);
  const problems: string[] = [];
  const lastWrite = new Map<string, number>();
  for (const { event, at } of window) {
    if (event.kind === 'write' && watched(event.path)) lastWrite.set(event.path, at);
    if (event.kind === 'rename' && watched(event.to) && !syncedAfter(path.dirname(event.to), at)) {
      problems.push(`renamed into ${path.dirname(event.to)} without syncing the folder`);
    }
  }
  for (const [file, at] of lastWrite) if (!syncedAfter(file, at)) problems.push(`wrote ${file} without syncing it`);
  return problems;
}
