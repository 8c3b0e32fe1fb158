import { describe, expect, it } from 'vitest';
import type { Checkpoint } from '../shared/index.js';
import { pullBatch, type SyncEndpoint } from '../client-sdk/replication/http.js';
import { pullAhead } from '../client-sdk/replication/pull-ahead.js';
import { useTestServer } from './support/fixture.js';
import { type TestServer } from './support/server.js';
import { pushChanges } from './support/sync.js';

/** The SDK's read-ahead pull against a real server: faster, and never at the cost of a change. */
describe('pull with read-ahead', () => {
  let server: TestServer;
  let endpoint: SyncEndpoint;

  useTestServer('pglite', { organization: 'Read-ahead Pools' }, async (t) => {
    ({ server } = t);
    const { token } = t;
    endpoint = { baseUrl: server.url, token };
    const rows = Array.from({ length: 25 }, (_, i) => ({ newDocumentState: { id: `c-${String(i).padStart(2, '0')}`, lastName: `Customer ${i}` } }));
    expect((await pushChanges(server, token, 'customers', rows)).status).toBe(200);
  });

  /** Pulls to the end as RxDB does: one page after another, each from the last checkpoint. */
  async function pullToEnd(fetchPage: ReturnType<typeof pullAhead>, between: (page: number) => Promise<void> = async () => {}) {
    const ids: string[] = [];
    let checkpoint: Checkpoint | undefined;
    for (let page = 0; ; page++) {
      const answer = await fetchPage(checkpoint, 10);
      ids.push(...answer.documents.map((d) => d.id));
      checkpoint = answer.checkpoint;
      if (answer.documents.length < 10) return ids;
      await between(page);
    }
  }

  it('fetches the next page while the device writes the current one, and still delivers a change committed meanwhile', async () => {
    const requested: number[] = [];
    const fetchPage = pullAhead((checkpoint, limit) => {
      requested.push(checkpoint?.seq ?? 0);
      return pullBatch(endpoint, 'customers', checkpoint, limit);
    });
    const ids = await pullToEnd(fetchPage, async (page) => {
      // The read-ahead of the next page is already on its way when the device gets a page.
      expect(requested).toHaveLength(page + 2);
      if (page === 0) await pushChanges(server, endpoint.token, 'customers', [{ newDocumentState: { id: 'late', lastName: 'Late' } }]);
    });
    expect(ids).toHaveLength(26);
    expect(ids.at(-1)).toBe('late');
    expect(new Set(ids).size).toBe(26);
  });

  it('a read-ahead that fails is dropped and the page fetched again', async () => {
    let calls = 0;
    const fetchPage = pullAhead((checkpoint, limit) => {
      calls++;
      if (calls === 2) return Promise.reject(new Error('signal lost'));
      return pullBatch(endpoint, 'customers', checkpoint, limit);
    });
    const ids = await pullToEnd(fetchPage);
    expect(ids).toHaveLength(26);
    expect(new Set(ids).size).toBe(26);
  });

  it('a read-ahead that reached the end is read again, so what was committed since is not hidden', async () => {
    const fetchPage = pullAhead((checkpoint, limit) => pullBatch(endpoint, 'customers', checkpoint, limit));
    const total = (await pullBatch(endpoint, 'customers', undefined, 1000)).documents.length;
    // The first page leaves one document: the read-ahead made now holds only that one.
    const first = await fetchPage(undefined, total - 1);
    await new Promise((r) => setTimeout(r, 300)); // the read-ahead has its answer before the write
    await pushChanges(server, endpoint.token, 'customers', [{ newDocumentState: { id: 'after-the-read-ahead', lastName: 'Later' } }]);
    const rest = await fetchPage(first.checkpoint, total - 1);
    expect(rest.documents.map((d) => d.id)).toContain('after-the-read-ahead');
    expect(rest.documents).toHaveLength(2);
  });

  it('a read-ahead is not used for another checkpoint or page size', async () => {
    const fetchPage = pullAhead((checkpoint, limit) => pullBatch(endpoint, 'customers', checkpoint, limit));
    const first = await fetchPage(undefined, 10);
    const again = await fetchPage(undefined, 10);
    expect(again.documents.map((d) => d.id)).toEqual(first.documents.map((d) => d.id));
    const larger = await fetchPage(first.checkpoint, 20);
    const direct = await pullBatch(endpoint, 'customers', first.checkpoint, 20);
    expect(larger.documents.map((d) => d.id)).toEqual(direct.documents.map((d) => d.id));
    expect(larger.documents[0]!.id).toBe('c-10');
  });
});
