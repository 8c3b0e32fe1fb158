import { useEffect, useState } from 'react';
import { UnsyncedRiskSetting } from '../../app-kit/components/unsynced-risk-setting.js';
import { dateTime } from '../../app-kit/format.js';
import { useObservable, useSession } from '../../app-kit/hooks.js';
import { useNotices } from '../notices.js';

/**
 * Sync in words: online or not, what waits for the server (visits, photos with their thumbnails,
 * stock movements, quotes), when the phone last synced, and what the server decided (a visit moved
 * to someone else, a change merged with the office's).
 */
const WHAT: Record<string, [string, string]> = {
  services: ['visit change', 'visit changes'],
  stockMovements: ['stock movement', 'stock movements'],
  quotes: ['quote', 'quotes'],
  customers: ['customer change', 'customer changes'],
};

const STATE_WORDS: Record<string, string> = {
  online: 'Online: changes go to the office as you make them.',
  offline: 'Offline: everything is kept on this phone and sent when there is signal.',
  connecting: 'Trying to reach the server; everything is kept on this phone meanwhile.',
  'rate-limited': 'The server asked this phone to wait a moment; it goes on by itself.',
  'signed-out': 'Signed out by the server: what this phone holds of the company is being deleted; work not yet sent stays.',
  'update-required': 'Update to sync: the server no longer accepts this version of the app. Everything below stays on this phone and is sent once the app is updated.',
  stopped: 'Sync is stopped.',
};

export function SyncScreen({ onSignOut }: { onSignOut: () => void }) {
  const { client, viewer } = useSession();
  const status = useObservable(() => client.sync.status$, null, [client]);
  const waiting = useWaiting();
  const photos = useWaitingPhotos();
  const { notices } = useNotices();
  return (
    <section aria-labelledby="sync-title">
      <h1 id="sync-title">Sync</h1>
      <p className={`state ${status?.online ? 'online' : 'offline'}`} data-testid="sync-state">
        {STATE_WORDS[status?.state ?? 'connecting']}
      </p>
      <p>Last synced: {status?.lastSyncedAt ? dateTime(status.lastSyncedAt) : 'not yet'}</p>
      <h2>Waiting for the server</h2>
      {waiting.length === 0 && photos.length === 0 ? (
        <p data-testid="nothing-waiting">Nothing: the office has everything from this phone.</p>
      ) : (
        <ul data-testid="waiting-list">
          {waiting.map(([collection, n]) => (
            <li key={collection}>
              {n} {WHAT[collection]?.[n === 1 ? 0 : 1] ?? `${collection} changes`}
            </li>
          ))}
          {photos.length > 0 && (
            <li>
              {photos.length} photo{photos.length === 1 ? '' : 's'}
              <div className="thumbs">
                {photos.map((p) => (
                  <img key={p.id} src={p.src} alt={p.caption ?? 'Photo waiting to upload'} />
                ))}
              </div>
            </li>
          )}
        </ul>
      )}
      {(status?.refusedChanges ?? 0) > 0 && <p className="error">{status!.refusedChanges} change(s) the server would not take as they are; change them again to retry.</p>}
      <h2>What the server decided</h2>
      {notices.length === 0 ? (
        <p>Nothing to report.</p>
      ) : (
        <ul className="notices">
          {notices.map((n) => (
            <li key={n.id}>
              <time dateTime={n.at}>{dateTime(n.at)}</time>: {n.text}
            </li>
          ))}
        </ul>
      )}
      <h2>This phone</h2>
      <p>
        Signed in as {viewer.user.name}, {viewer.organization.name}.
      </p>
      <UnsyncedRiskSetting app="tech" />
      <p className="hint">Signing out deletes the customers and routes from this phone; work not yet sent stays on it until you sign in again.</p>
      <button type="button" onClick={onSignOut}>
        Sign out
      </button>
    </section>
  );
}

/** Changes waiting, per collection. */
function useWaiting(): [string, number][] {
  const { client } = useSession();
  const [counts, setCounts] = useState<[string, number][]>([]);
  useEffect(() => {
    const subscription = client.db.collections.pendingChanges.find().$.subscribe((entries) => {
      const by = new Map<string, number>();
      for (const e of entries) if (!e.refused) by.set(e.collectionName, (by.get(e.collectionName) ?? 0) + 1);
      setCounts([...by.entries()]);
    });
    return () => subscription.unsubscribe();
  }, [client]);
  return counts;
}

function useWaitingPhotos(): { id: string; src: string; caption: string | null }[] {
  const { client } = useSession();
  const [photos, setPhotos] = useState<{ id: string; src: string; caption: string | null }[]>([]);
  useEffect(() => {
    const subscription = client.db.collections.photoUploads
      .find({ selector: { failure: null } })
      .$.subscribe((docs) => setPhotos(docs.map((d) => ({ id: d.id, src: `data:${d.contentType};base64,${d.data}`, caption: d.caption ?? null }))));
    return () => subscription.unsubscribe();
  }, [client]);
  return photos;
}
