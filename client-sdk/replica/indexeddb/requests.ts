/**
 * IndexedDB's requests and transactions as promises. Only the last step of a transaction may be
 * awaited: the transaction commits once a task ends with nothing asked of it, so whatever must
 * happen inside one is chained in the requests' callbacks (see `readThenWrite`).
 */
export function requestResult<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/** Settles when the transaction has committed, or fails with why it did not (a refused write, a quota). */
export function transactionDone(transaction: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    transaction.oncomplete = () => resolve();
    transaction.onabort = () => reject(transaction.error ?? new DOMException('transaction aborted', 'AbortError'));
  });
}

/**
 * Reads `keys` from the store, then calls `write` with what was found (in the order of `keys`,
 * undefined where nothing is stored), all in the transaction: nothing can be written between the
 * read and the write.
 */
export function readThenWrite(store: IDBObjectStore, keys: readonly string[], write: (found: unknown[]) => void): void {
  const found: unknown[] = new Array(keys.length);
  let waiting = keys.length;
  if (!waiting) return write(found);
  keys.forEach((key, i) => {
    const request = store.get(key);
    request.onsuccess = () => {
      found[i] = request.result;
      if (--waiting === 0) write(found);
    };
  });
}

/**
 * The records of `keys` (undefined where none is stored), in their order: one request each, as
 * IndexedDB has no read of many keys, settled once, without a promise per key (3,000 of them cost
 * RxDB's find-by-id a quarter more than Dexie's read; test/bench/storage.ts).
 */
export function getMany(store: IDBObjectStore, keys: readonly string[]): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const found: unknown[] = new Array(keys.length);
    let waiting = keys.length;
    if (!waiting) return resolve(found);
    keys.forEach((key, i) => {
      const request = store.get(key);
      request.onerror = () => reject(request.error);
      request.onsuccess = () => {
        found[i] = request.result;
        if (--waiting === 0) resolve(found);
      };
    });
  });
}

export function openDatabase(name: string, upgrade: (db: IDBDatabase) => void): Promise<IDBDatabase> {
  const request = indexedDB.open(name, 1);
  request.onupgradeneeded = () => upgrade(request.result);
  return requestResult(request).then((db) => {
    // Another page deleting or upgrading this database is not kept waiting by this one.
    db.onversionchange = () => db.close();
    return db;
  });
}

export function deleteDatabase(name: string): Promise<void> {
  return requestResult(indexedDB.deleteDatabase(name)).then(() => undefined);
}

/**
 * `source.getAll(range, count)` read `piece` records at a time, each piece asked once the last one
 * came, in the same transaction (one snapshot). A browser turns a read's records back into objects
 * in the task that delivers them: a day of a company's visits (2,600) read at once held the page
 * for one long task; in pieces, a click or a frame can come between them. `keyOf` gives a record's
 * key in `source`, which must be unique (every index of the replica ends with the primary key).
 */
export function getAllInPieces(source: IDBIndex | IDBObjectStore, range: IDBKeyRange | undefined, keyOf: (record: unknown) => IDBValidKey, count?: number, piece = 500): Promise<unknown[]> {
  // IndexedDB reads a count of 0 as "no limit".
  if (count === 0) return Promise.resolve([]);
  return new Promise((resolve, reject) => {
    const records: unknown[] = [];
    const read = (from: IDBKeyRange | undefined) => {
      const want = count === undefined ? piece : Math.min(piece, count - records.length);
      const request = source.getAll(from, want);
      request.onerror = () => reject(request.error);
      request.onsuccess = () => {
        try {
          const got = request.result;
          for (const record of got) records.push(record);
          if (got.length < want || records.length === count) return resolve(records);
          const after = keyOf(got[got.length - 1]);
          // A piece that ended on the range's last key: nothing is after it.
          if (range && indexedDB.cmp(after, range.upper) >= 0) return resolve(records);
          read(range ? IDBKeyRange.bound(after, range.upper, true, range.upperOpen) : IDBKeyRange.lowerBound(after, true));
        } catch (error) {
          reject(error);
        }
      };
    };
    read(range);
  });
}
