import type { Logger } from 'pino';

/**
 * A background loop that runs rounds until stopped: after a round that found work it runs the next
 * at once, after an idle one it waits `pollMs` (cut short by stop). A round that throws is logged
 * and the loop goes on. Subclasses say what one round does; `running` tells a round in progress
 * that stop was asked, so it can leave what it claimed but has not begun.
 */
export abstract class PollingWorker {
  protected running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;

  protected constructor(private readonly polling: { logger: Logger; pollMs?: number; name: string }) {}

  /** One round; true when it found work (the next round then runs at once). */
  protected abstract round(): Promise<boolean>;

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Finishes the round in hand, then stops. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (this.running) {
      let worked = false;
      try {
        worked = await this.round();
      } catch (error) {
        this.polling.logger.error({ err: error }, `${this.polling.name} failed`);
      }
      if (!worked && this.running) await this.idle();
    }
  }

  private async idle(): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.polling.pollMs ?? 500);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wake = null;
  }
}
