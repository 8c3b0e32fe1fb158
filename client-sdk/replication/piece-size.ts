/**
 * How many pulled documents to write to the replica at a time, sized to a time budget. A browser's
 * IndexedDB write of a thousand visits held the page for a few hundred milliseconds (its
 * serialization and RxDB's change events run on the page's one thread), so pulled pages are written
 * in pieces with the page let go between them. A fixed small piece cost the storages whose write
 * grows with what they hold (RxDB's memory storage merges every piece into its sorted indexes: at
 * 250 a piece, a first sync of 50,000 visits spent 2.6 s merging). So the piece grows while
 * writes stay well inside the budget and shrinks when one overruns it: each storage gets the
 * largest piece that keeps the page responsive.
 */
export class PieceSize {
  private size: number;

  constructor(
    private readonly budgetMs = 50,
    initial = 250,
    private readonly smallest = 25,
    private readonly largest = 5000,
  ) {
    this.size = initial;
  }

  get current(): number {
    return this.size;
  }

  /** A piece of `count` documents took `ms` to write. */
  took(ms: number, count: number): void {
    if (ms > this.budgetMs * 2) this.size = Math.max(this.smallest, Math.floor(this.size / 2));
    else if (ms < this.budgetMs / 2 && count >= this.size) this.size = Math.min(this.largest, this.size * 2);
  }
}
