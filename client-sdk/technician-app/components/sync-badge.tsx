import { useObservable, useSession } from '../../app-kit/hooks.js';
import { href } from '../../app-kit/route.js';

/** Always in view: online or not, and how much waits for the server. */
export function SyncBadge() {
  const { client } = useSession();
  const status = useObservable(() => client.sync.status$, null, [client]);
  const waiting = (status?.pendingPushes ?? 0) + (status?.pendingPhotoUploads ?? 0);
  const online = status?.online ?? false;
  return (
    <a href={href('sync')} className={`sync-badge ${online ? 'online' : 'offline'}`} data-testid="sync-badge">
      <span data-testid="connection">{status?.state === 'signed-out' ? 'Signed out' : status?.state === 'update-required' ? 'Update to sync' : online ? 'Online' : 'Offline'}</span>
      {waiting > 0 && <span data-testid="waiting"> · {waiting} waiting</span>}
    </a>
  );
}
