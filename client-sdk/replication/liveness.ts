/**
 * Which requests in flight still have a live connection under them.
 *
 * A dead cell tower or a lost NAT mapping never tells the device: a request on such a connection
 * waits, silently, until its deadline; so does one sent on a pooled connection that died while it
 * sat idle, and a live stream stops receiving its heartbeats while its socket looks open. What
 * the device can see is whether other requests get through. Two rules turn that into "this one is
 * dead", and its caller retries at once:
 *
 * - after trouble: each network failure (and each request found dead) opens a new epoch. When a
 *   request started in epoch E is answered, every request whose last sign of life (its start, its
 *   answer's headers, a chunk of its body) came before epoch E was in flight across the trouble
 *   and is presumed dead.
 * - overdue: each request says by when it expects its next sign of life (a plain request: its
 *   answer, within some seconds plus its body's time on a slow link; a live stream: its next
 *   heartbeat). One that is overdue is presumed dead as soon as another request shows life: the
 *   network works, and this one's connection does not. If nothing else is going on to show it,
 *   the watch asks: it probes the server (`probe`, a tiny request on a connection of its own), at
 *   most every PROBE_INTERVAL_MS while something is overdue.
 *
 * A request that has been answered and then reads a slow body is not judged here; its own
 * deadline covers it. In a browser, the `online` event says at once what the rules infer: every
 * request then in flight was made on the network that went away.
 */
export interface WatchedCall {
  readonly startedIn: number;
  lifeIn: number;
  /** By when its next sign of life is due (Infinity: nothing more is expected). */
  expectedBy: number;
  readonly abandon: () => void;
}

/** Probes no more often than this while requests are overdue. */
export const PROBE_INTERVAL_MS = 2_000;

export class ConnectionWatch {
  private epoch = 0;
  private readonly calls = new Set<WatchedCall>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private probing = false;
  private lastProbeAt = 0;
  private closed = false;

  /** `probe`: a request of its own whose answer (or failure) the watch learns through its Call. */
  constructor(private readonly probe?: () => Promise<void>) {}

  /** Registers a request that expects its answer within `expectedMs`; `abandon` aborts it. */
  track(abandon: () => void, expectedMs: number): WatchedCall {
    const call: WatchedCall = { startedIn: this.epoch, lifeIn: this.epoch, expectedBy: Date.now() + expectedMs, abandon };
    this.calls.add(call);
    this.schedule();
    return call;
  }

  /**
   * The request received bytes: its connection is alive now, and so is the network. `nextWithinMs`:
   * when its next bytes are due (a stream's heartbeat), else nothing more is expected of it.
   */
  alive(call: WatchedCall, nextWithinMs?: number): void {
    const now = Date.now();
    this.abandon([...this.calls].filter((other) => other !== call && now > other.expectedBy));
    call.lifeIn = this.epoch;
    call.expectedBy = nextWithinMs === undefined ? Infinity : now + nextWithinMs;
    this.schedule();
  }

  /** The request got its answer: older requests silent since the last trouble are presumed dead. */
  answered(call: WatchedCall, nextWithinMs?: number): void {
    this.abandon([...this.calls].filter((other) => other !== call && other.lifeIn < call.startedIn));
    this.alive(call, nextWithinMs);
  }

  /** A request failed for want of a network (a connection error, a deadline, a silent stream). */
  trouble(): void {
    this.epoch++;
  }

  /** The platform says the network is back (a browser's `online`): whatever is in flight is on the old one. */
  networkBack(): void {
    this.epoch++;
    this.abandon([...this.calls]);
  }

  untrack(call: WatchedCall): void {
    this.calls.delete(call);
    this.schedule();
  }

  /** Stops probing (the client closes). */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.calls.clear();
  }

  /**
   * Gives the requests up as dead. Finding dead connections is itself trouble: it opens a new
   * epoch, so the next request answered also ends those still waiting from before it.
   */
  private abandon(calls: WatchedCall[]): void {
    if (!calls.length) return;
    this.epoch++;
    for (const call of calls) {
      this.calls.delete(call);
      call.abandon();
    }
  }

  /** Wakes up when the next request falls due, to probe if it is still waiting then. */
  private schedule(): void {
    if (!this.probe || this.closed) return;
    clearTimeout(this.timer);
    let due = Infinity;
    for (const call of this.calls) due = Math.min(due, call.expectedBy);
    if (due === Infinity) return;
    const at = Math.max(due, this.lastProbeAt + PROBE_INTERVAL_MS);
    this.timer = setTimeout(() => this.probeIfOverdue(), Math.max(0, at - Date.now()) + 1);
  }

  private probeIfOverdue(): void {
    this.timer = undefined;
    const now = Date.now();
    const overdue = [...this.calls].some((c) => now > c.expectedBy);
    if (!overdue || this.probing) return this.schedule();
    this.probing = true;
    this.lastProbeAt = now;
    this.probe!()
      .catch(() => undefined) // a failed probe has told the watch (trouble) through its own Call
      .finally(() => {
        this.probing = false;
        this.schedule();
      });
  }
}
