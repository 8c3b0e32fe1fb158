import type { Checkpoint, PullAnswer } from '../../shared/index.js';

/**
 * Pulls with one page of read-ahead. RxDB asks for pages one after another and writes each into
 * the replica before asking for the next; while it writes, the next page is already on its way, so
 * an initial sync costs about max(server, device) instead of their sum.
 *
 * A full page read ahead is as good as one read later: the change feed is ordered by commit, so
 * anything committed after the read lands beyond the page's checkpoint, and RxDB goes on pulling
 * after a full page. A short page is different: RxDB stops there, so a short page read ahead could
 * hide what was committed since (after a reconnect, say); it is dropped and read again. Only a
 * full page is followed by a read-ahead, a read-ahead is used only for exactly the checkpoint and
 * size asked, and a failed one is dropped and the page fetched again.
 */
export type PageFetcher = (checkpoint: Checkpoint | undefined, limit: number) => Promise<PullAnswer>;

export function pullAhead(fetchPage: PageFetcher): PageFetcher {
  let ahead: { seq: number; limit: number; page: Promise<PullAnswer | null> } | null = null;

  return async (checkpoint, limit) => {
    const seq = checkpoint?.seq ?? 0;
    const early = ahead && ahead.seq === seq && ahead.limit === limit ? await ahead.page : null;
    ahead = null;
    const page = early && early.documents.length === limit ? early : await fetchPage(checkpoint, limit);
    if (page.documents.length === limit) {
      const next = page.checkpoint;
      ahead = { seq: next.seq, limit, page: fetchPage(next, limit).catch(() => null) };
    }
    return page;
  };
}
