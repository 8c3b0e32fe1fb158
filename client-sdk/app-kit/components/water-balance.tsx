import type { ReactNode } from 'react';
import type { Dose, WaterBalance } from '../../../shared/index.js';
import { amountText, BAND_WORDS, doseLine } from '../chemistry.js';

/**
 * A visit's balance as both apps show it: the band in its colour (CSI, or the LSI when only it
 * could be computed), both indices with the constants used, and the suggested doses with what the
 * engine could not do. `action` adds a control per dose (the technician app books it from the truck).
 */
export function BalanceSummary({ balance }: { balance: WaterBalance }) {
  const index = (value: number | null) => (value == null ? '—' : value.toFixed(2));
  return (
    <div className="balance">
      {balance.band ? <span className={`balance-band balance-band-${balance.band.toLowerCase()}`}>{BAND_WORDS[balance.band]}</span> : <span className="balance-band balance-band-unknown">Not enough readings</span>}
      <span className="indices">
        CSI {index(balance.csi)} · LSI {index(balance.lsi)}
        {balance.lsiTdsConstant != null && ` (C ${balance.lsiTdsConstant})`} · formulas v{balance.formulaVersion}
      </span>
    </div>
  );
}

/** `allInRange`: every reading measured is inside its range (so no dose is news, not a gap). */
export function DoseList({ balance, allInRange, action }: { balance: WaterBalance; allInRange: boolean; action?: (dose: Dose) => ReactNode }) {
  return (
    <>
      {balance.doses.length === 0 ? (
        <p className="hint">{allInRange ? 'Nothing to add: every reading measured is in its range.' : 'No dose suggested: see why below.'}</p>
      ) : (
        <ol className="doses">
          {balance.doses.map((dose) => (
            <li key={`${dose.reading}-${dose.chemical}`}>
              <span className="dose-text">{doseLine(dose)}</span>
              {dose.carriedOver > 0 && <span className="carried"> · {amountText(dose.carriedOver, dose.unit)} more at the next visit (cap)</span>}
              {action?.(dose)}
            </li>
          ))}
        </ol>
      )}
      {balance.notes.length > 0 && (
        <ul className="balance-notes">
          {balance.notes.map((note) => (
            <li key={note}>{note}</li>
          ))}
        </ul>
      )}
    </>
  );
}
