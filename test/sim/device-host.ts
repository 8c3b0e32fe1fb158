import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { endsWithThisProcess, ROOT } from '../support/child.js';
import type { DeviceRequest } from './device.js';

/** A device process seen from the simulation: requests over IPC, each with a deadline. */
export class DeviceHost {
  private nextId = 0;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private constructor(private readonly child: ChildProcess) {
    child.on('message', (message: { id?: number; ok?: boolean; result?: unknown; error?: string }) => {
      if (message.id === undefined) return;
      const waiter = this.waiting.get(message.id);
      this.waiting.delete(message.id);
      if (message.ok) waiter?.resolve(message.result);
      else waiter?.reject(new Error(message.error));
    });
    child.on('exit', (code) => {
      for (const w of this.waiting.values()) w.reject(new Error(`device process exited (${code})`));
      this.waiting.clear();
    });
  }

  static async spawn(): Promise<DeviceHost> {
    const child = endsWithThisProcess(
      fork(path.join(ROOT, 'test/sim/device.ts'), [], {
        cwd: ROOT,
        execArgv: ['--expose-gc', '--import', 'tsx'],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      }),
    );
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`device process exited (${code}) before it was ready`)));
    });
    return new DeviceHost(child);
  }

  request<T = unknown>(request: DeviceRequest, timeoutMs = 30_000): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`device did not answer ${request.op} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v as T);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.child.send({ id, request });
    });
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }
}
