/** Helpers that speak the replication protocol over HTTP, as any client would. */
export interface SyncAnswer<T = any> {
  status: number;
  body: T;
}

export async function pullChanges(server: { url: string }, token: string, collection: string, checkpoint = 0, limit = 1000) {
  const res = await fetch(`${server.url}/sync/${collection}/pull?checkpoint=${checkpoint}&limit=${limit}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: res.status, body: (await res.json()) as any };
}

export async function pushChanges(
  server: { url: string },
  token: string,
  collection: string,
  rows: { assumedMasterState?: Record<string, unknown> | null; newDocumentState: Record<string, unknown>; changeId?: string }[],
  /** The device's pull checkpoint, sent as `?checkpoint=` (our SDK does; stock RxDB does not). */
  checkpoint?: number | string,
  /** The device's live stream, sent as `&stream=` beside the checkpoint: its own writes are not sent back on it. */
  stream?: string,
) {
  const query = checkpoint === undefined ? '' : `?checkpoint=${checkpoint}${stream ? `&stream=${stream}` : ''}`;
  const res = await fetch(`${server.url}/sync/${collection}/push${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(rows),
  });
  const moved = res.headers.get('sync-checkpoint');
  return { status: res.status, body: (await res.json()) as any, movedTo: moved === null ? null : Number(moved) };
}

/** Pulls a collection to the end, returning every document and the final checkpoint. */
export async function pullAll(server: { url: string }, token: string, collection: string, from = 0, limit = 1000) {
  const documents: any[] = [];
  let checkpoint = from;
  for (;;) {
    const { status, body } = await pullChanges(server, token, collection, checkpoint, limit);
    if (status !== 200) throw new Error(`pull failed: ${status} ${JSON.stringify(body)}`);
    documents.push(...body.documents);
    if (body.documents.length < limit) return { documents, checkpoint: body.checkpoint.seq as number };
    checkpoint = body.checkpoint.seq;
  }
}

/** The server state of one document, as a pull delivers it. */
export async function serverDocument(server: { url: string }, token: string, collection: string, id: string) {
  const { documents } = await pullAll(server, token, collection);
  return documents.filter((d) => d.id === id).at(-1);
}
