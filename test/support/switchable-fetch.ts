/**
 * A fetch a test can take offline: while offline every call fails the way a dropped network does
 * (a TypeError), and calls in flight when it goes offline are aborted.
 */
export function switchableFetch() {
  let online = true;
  let inflight = new Set<AbortController>();
  const wrapped: typeof fetch = async (input, init) => {
    if (!online) throw new TypeError('fetch failed: offline');
    const controller = new AbortController();
    init?.signal?.addEventListener('abort', () => controller.abort());
    inflight.add(controller);
    try {
      return await fetch(input, { ...init, signal: controller.signal });
    } finally {
      inflight.delete(controller);
    }
  };
  return {
    fetch: wrapped,
    get online() {
      return online;
    },
    setOnline(value: boolean) {
      online = value;
      if (!value) {
        for (const c of inflight) c.abort();
        inflight = new Set();
      }
    },
  };
}
