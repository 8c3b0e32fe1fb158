import type { SyncStatus } from '../../index.js';

/**
 * What the person must know about the app's version: a new one is ready (taken by itself at a
 * safe moment, or now with the button), or the server no longer syncs with this one ("Update to
 * sync"), with what was entered kept on the device meanwhile.
 */
export function UpdateNotice({ ready, apply, status, device }: { ready: boolean; apply(): void; status: SyncStatus | null; device: string }) {
  const required = status?.state === 'update-required';
  if (ready) {
    return (
      <div className="update-notice" role="status" data-testid="update-ready">
        <p>
          A new version is ready{required ? ', and sync resumes with it' : ''}. It loads when you next change screens, or now.
        </p>
        <button type="button" onClick={apply}>
          Update now
        </button>
      </div>
    );
  }
  if (!required) return null;
  return (
    <p className="update-notice" role="alert" data-testid="update-required">
      Update to sync: the server no longer accepts this version of the app. Everything entered is kept on this {device} and is sent once the app is updated.
    </p>
  );
}
