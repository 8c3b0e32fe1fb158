/**
 * Which tab replicates a replica that several tabs of one browser profile share: the one holding
 * a Web Lock of the replica's name. Every tab whose sync is started asks for the lock; the browser
 * grants it to one, and when that tab leaves (its sync stopped, the client closed, the tab closed
 * or crashed) to the next that asked, at once (about 20 ms in Chromium: replication/README.md).
 * No heartbeats, no timeouts: the browser knows when a tab is gone.
 */
export class TabLeadership {
  private leaveNow: (() => void) | null = null;
  private held: Promise<void> = Promise.resolve();

  /**
   * `lead` runs when this tab is granted the lock, `unlead` when it gives it up; the lock is held
   * from the start of one to the end of the other, so two tabs never replicate at once.
   */
  constructor(
    private readonly name: string,
    private readonly lead: () => Promise<void>,
    private readonly unlead: () => Promise<void>,
  ) {}

  /** Asks to lead (again after `leave`); this tab leads once every tab before it has left. */
  join(): void {
    if (this.leaveNow) return;
    const abort = new AbortController();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    this.leaveNow = () => {
      abort.abort(); // withdraws a request not granted yet; a granted one ends by `released`
      release();
    };
    this.held = navigator.locks
      .request(this.name, { signal: abort.signal }, async () => {
        try {
          await this.lead();
          await released;
        } finally {
          await this.unlead();
        }
      })
      .then(
        () => undefined,
        (error: unknown) => {
          if (!abort.signal.aborted) throw error;
        },
      );
  }

  /** Stops asking, or stops leading (once `unlead` is done the next tab leads). */
  async leave(): Promise<void> {
    const leave = this.leaveNow;
    this.leaveNow = null;
    leave?.();
    await this.held;
  }
}
