import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import type { Departure, MergedChange } from '../index.js';
import { useSession } from '../app-kit/hooks.js';
import { customerName, time } from '../app-kit/format.js';

/**
 * What sync did that a technician should know, in their words: a visit the office moved to
 * someone else, and a change the server merged with another (the office edited the same visit).
 * Collected from the SDK's `departures$` and `conflicts$` while the app runs; the newest shows as a
 * banner until dismissed, all of them on the Sync screen.
 */
export interface Notice {
  id: number;
  at: string;
  text: string;
}

const NoticesContext = createContext<{ notices: Notice[]; unseen: Notice | null; dismiss(): void }>({ notices: [], unseen: null, dismiss: () => {} });

/** Field names as a technician says them. */
const FIELD_WORDS: Record<string, string> = {
  notes: 'notes',
  chemicalReadings: 'readings',
  waterLevel: 'water level',
  waterCondition: 'water condition',
  waterColor: 'water colour',
  startTime: 'start time',
  endTime: 'end time',
  newTechnicianId: 'technician',
  photos: 'photos',
  billingStatus: 'billing',
};

export function NoticesProvider({ children }: { children: ReactNode }) {
  const { client } = useSession();
  const [notices, setNotices] = useState<Notice[]>([]);
  const [unseen, setUnseen] = useState<Notice | null>(null);
  useEffect(() => {
    let next = 1;
    const add = (text: string) => {
      const notice = { id: next++, at: new Date().toISOString(), text };
      setNotices((all) => [notice, ...all].slice(0, 50));
      setUnseen(notice);
    };
    const departures = client.departures$.subscribe((d) => {
      const words = departureWords(d);
      if (words) add(words);
    });
    const merges = client.conflicts$.subscribe((m) => {
      const words = mergeWords(m);
      if (words) add(words);
    });
    return () => {
      departures.unsubscribe();
      merges.unsubscribe();
    };
  }, [client]);
  return <NoticesContext.Provider value={{ notices, unseen, dismiss: () => setUnseen(null) }}>{children}</NoticesContext.Provider>;
}

export const useNotices = () => useContext(NoticesContext);

/** Null where leaving is no news: an invoice paid or voided (the customer's balance shows it), a payment that aged out. */
function departureWords(d: Departure): string | null {
  if (d.collection === 'invoices' || d.collection === 'payments') return null;
  const what = d.collection === 'services' ? `The visit${d.held.startTime ? ` at ${time(String(d.held.startTime))}` : ''}` : d.collection === 'customers' ? `Customer ${customerName(d.held as never)}` : 'A record';
  const delivered = d.changesDelivered ? ' What you recorded on it reached the office first.' : '';
  return `${what} was given to another technician and left this phone.${delivered}`;
}

/** The fields the server's answer holds differently from what this phone sent: what the server kept. */
function mergeWords(m: MergedChange): string | null {
  if (m.collection === 'payments') return refusedPaymentWords(m);
  if (m.collection !== 'services' && m.collection !== 'customers') return null;
  const sent = (m.sent ?? {}) as Record<string, unknown>;
  const server = m.server as Record<string, unknown>;
  const fields = Object.keys(FIELD_WORDS).filter((f) => f in sent && comparable(f, sent[f]) !== comparable(f, server[f]));
  if (!fields.length) return null;
  const what = m.collection === 'services' ? 'this visit' : 'this customer';
  return `The office changed ${what} too. The server kept its ${fields.map((f) => FIELD_WORDS[f]).join(', ')}; see the visit for what it holds now.`;
}

/** A payment the server would not record (a customer no longer this technician's, say): kept for the office, gone from the phone. */
function refusedPaymentWords(m: MergedChange): string | null {
  const server = m.server as { _deleted?: boolean } | null;
  const sent = (m.sent ?? {}) as { amount?: number; method?: string };
  if (!server?._deleted) return null;
  return `The server did not record a ${String(sent.method ?? '').toLowerCase()} payment of ${sent.amount ?? ''} you took; the office has it and will follow up.`;
}

/**
 * A field's value as the technician would compare it: photos by which photos they are (the server
 * adds each one's link and size once its bytes arrive: no decision of the office's), objects
 * without their empty entries (an empty reading sent as null is the same as one left out).
 */
function comparable(field: string, value: unknown): string {
  if (field === 'photos') return JSON.stringify(((value ?? []) as { id: string }[]).map((p) => p.id).sort());
  if (value && typeof value === 'object' && !Array.isArray(value)) return JSON.stringify(Object.fromEntries(Object.entries(value).filter(([, v]) => v != null).sort(([a], [b]) => a.localeCompare(b))));
  return JSON.stringify(value ?? null);
}

/** The newest notice, until dismissed. */
export function Notices() {
  const { unseen, dismiss } = useNotices();
  if (!unseen) return null;
  return (
    <div className="notice" role="status">
      <p>{unseen.text}</p>
      <button type="button" onClick={dismiss}>
        OK
      </button>
    </div>
  );
}
