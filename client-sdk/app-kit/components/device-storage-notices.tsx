import { useEffect, useState } from 'react';
import type { StorageFull } from '../../index.js';
import { askPersistentStorage, atRisk, unsyncedRiskHours, type Persistence } from '../device-storage.js';
import { useObservable, useSession } from '../hooks.js';

/**
 * What the person must know about the work kept on this device, shown until it no longer holds
 * (not a modal: work goes on): the browser refused persistent storage; a write was refused for
 * want of space (what they entered was not saved); work has waited for the server longer than
 * the app's setting (`pool-<app>-unsynced-risk-hours`, 12 unless set).
 */
export function DeviceStorageNotices({ app }: { app: string }) {
  const { client } = useSession();
  const persistence = usePersistence();
  const status = useObservable(() => client.sync.status$, null, [client]);
  const full = useObservable<StorageFull | null>(() => client.storageFull$, null, [client]);
  const [dismissedFull, setDismissedFull] = useState<string | null>(null);
  useMinuteClock();
  const hours = unsyncedRiskHours(app);
  const since = status?.unsyncedSince ?? null;
  return (
    <div className="device-storage" aria-live="polite">
      {persistence === 'refused' && (
        <p className="storage-notice storage-refused" role="status">
          This browser may delete the work kept on this device when space runs low. Install the app (Add to Home Screen) or allow storage for this site to keep it.
        </p>
      )}
      {full && full.at !== dismissedFull && (
        <div className="storage-notice storage-full" role="alert">
          <p>This device is out of storage space: your last change was not saved. Free up space on the device, then enter it again.</p>
          <button type="button" onClick={() => setDismissedFull(full.at)}>
            OK
          </button>
        </div>
      )}
      {atRisk(since, hours) && (
        <p className="storage-notice unsynced-risk" role="status">
          Work on this device has not reached the server since {new Date(since!).toLocaleString()}. Connect to the internet soon: until then it exists only on this device.
        </p>
      )}
    </div>
  );
}

function usePersistence(): Persistence | null {
  const [persistence, setPersistence] = useState<Persistence | null>(null);
  useEffect(() => {
    void askPersistentStorage().then(setPersistence);
  }, []);
  return persistence;
}

/** Renders again every half minute, so "waiting too long" appears without any other change. */
function useMinuteClock(): void {
  const [, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(timer);
  }, []);
}
