import { useState } from 'react';
import { setUnsyncedRiskHours, unsyncedRiskHours } from '../device-storage.js';
import { Field } from './field.js';

/**
 * The app's setting for when work still waiting for the server is shown as at risk (see
 * DeviceStorageNotices), kept in this browser: a shop whose phones are out of signal all day may
 * want more than the default 12 hours, one that wants to hear sooner less.
 */
export function UnsyncedRiskSetting({ app }: { app: string }) {
  const [hours, setHours] = useState(() => String(unsyncedRiskHours(app)));
  return (
    <Field label="Warn when work has waited for the server longer than (hours)">
      <input
        type="number"
        inputMode="decimal"
        min="0.1"
        step="any"
        value={hours}
        onChange={(event) => {
          setHours(event.target.value);
          setUnsyncedRiskHours(app, Number(event.target.value));
        }}
      />
    </Field>
  );
}
