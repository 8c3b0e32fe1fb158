import type { SyncState } from '../../index.js';
import { useDocs, useGraphQL, useObservable, useSession } from '../../app-kit/hooks.js';
import { OfficeConflictCountDocument, OfficeLogoDocument } from '../graphql/operations.generated.js';
import { href } from '../../app-kit/route.js';
import { conflictsSeenSince } from '../screens/conflicts.js';
import { time } from '../../app-kit/format.js';

const CONNECTION_WORDS: Record<SyncState, string> = {
  stopped: 'Offline',
  connecting: 'Connecting…',
  online: 'Online',
  offline: 'Offline',
  'rate-limited': 'Online (slowed down)',
  'signed-out': 'Signed out',
  'update-required': 'Update to sync',
};

/**
 * The header: the organization's name and logo, and sync state always in view: connected or
 * not, changes waiting for the server, when the replica last synced, conflicts to review.
 */
export function SyncBar({ onSignOut }: { onSignOut: () => void }) {
  const { client, viewer } = useSession();
  const status = useObservable(() => client.sync.status$, null, [client]);
  const organization = useDocs('organization', {}, [])?.[0];
  const logo = useGraphQL(OfficeLogoDocument, undefined, [organization?.updatedAt]);
  const conflicts = useGraphQL(
    OfficeConflictCountDocument,
    { since: conflictsSeenSince() },
    // Asked again at most once a minute of syncing (a busy organization syncs many times a minute).
    [status?.lastSyncedAt?.slice(0, 16)],
  );
  const toReview = conflicts.data?.syncConflicts.edges.length ?? 0;
  const pending = (status?.pendingPushes ?? 0) + (status?.pendingPhotoUploads ?? 0);
  return (
    <header className="sync-bar">
      <div className="brand">
        {logo.data?.organization.logo && <img src={logo.data.organization.logo} alt="" className="logo" />}
        <span className="org-name">{organization?.name ?? viewer.organization.name}</span>
      </div>
      <ul className="sync-state" aria-label="Sync state" aria-live="polite">
        <li className={status?.online ? 'online' : 'offline'} data-testid="connection">
          {CONNECTION_WORDS[status?.state ?? 'connecting']}
        </li>
        <li data-testid="pending">{pending === 0 ? 'All changes saved' : `${pending} change${pending === 1 ? '' : 's'} waiting to sync`}</li>
        <li data-testid="last-synced" data-first-sync={status?.firstSyncDone ? 'done' : 'pending'}>
          Last synced {status?.lastSyncedAt ? time(status.lastSyncedAt) : 'never'}
          {status && !status.firstSyncDone && status.ready.length > 0 && <span className="first-sync"> · {status.ready.includes('week') ? "this week's visits are here; the rest is arriving" : "today's visits are here; the rest is arriving"}</span>}
        </li>
        <li>
          <a href={href('conflicts')} data-testid="conflict-count">
            {toReview === 0 ? 'No conflicts' : `${toReview}${toReview === 100 ? '+' : ''} conflict${toReview === 1 ? '' : 's'} to review`}
          </a>
        </li>
      </ul>
      <div className="who">
        <span>
          {viewer.user.name} ({viewer.role.toLowerCase()})
        </span>
        <button type="button" className="link" onClick={onSignOut}>
          Sign out
        </button>
      </div>
      {status?.state === 'signed-out' && (
        <p role="alert" className="error banner">
          The server no longer accepts this token (revoked?), and sync has stopped. Sign out and sign in with a valid one.
        </p>
      )}
      {status?.state === 'rate-limited' && (
        <p role="status" className="banner">
          The server asked this app to slow down; sync resumes by itself in a moment.
        </p>
      )}
    </header>
  );
}
