import * as z from 'zod';
import type { CollectionName } from '../resources/index.js';

/**
 * A first sync's priorities (PowerSync's sync priorities are the model): what a device needs
 * first, before the rest of its scope. A new phone shows today's route within a second, whatever
 * history its technician has; the office's board shows today, then the week, while the rest of
 * the window arrives.
 *
 * A band is a time range of visits, in the device's local days, and what those visits need (their
 * customers). On a replica that has never been pulled to the end, the SDK pulls each band in
 * order (`GET /sync/:collection/pull?from=&to=`), then every collection's feed from the start as
 * always. A band pull reads the device's own feed (only rows it holds, each as it is now) filtered
 * to the band and ordered by position, so it brings nothing the device may not hold. It never
 * moves a checkpoint: the feed pulled from the start after it is what makes the replica complete,
 * bringing every row, departures and deletions included, at a state no older than the band's, so
 * a write made while the bands were read is never missed or held back. So that the band's
 * documents do not travel twice, that full pull names the band the device holds (`HeldBand`): the
 * feed then leaves out each row the band brought and nothing has changed since (see `HeldBand`).
 */
export interface PriorityBand {
  readonly name: 'today' | 'week';
  /** What the band holds, in words. */
  readonly holds: string;
}

/** The bands, in the order they are pulled. The same for every role: each device's feed decides what of it is theirs. */
export const PRIORITY_BANDS: readonly PriorityBand[] = [
  { name: 'today', holds: "today's visits and their customers" },
  { name: 'week', holds: "this week's visits (Monday to Sunday) and the next seven days', with their customers" },
];

export type PriorityName = PriorityBand['name'];

/**
 * What a band pulls of a collection: the visits whose `time` lies in the band, and the rows those
 * visits name (`neededBy`). Other collections wait for the full pull.
 */
export type BandRule = { readonly time: string } | { readonly neededBy: CollectionName; readonly field: string };

export const BAND_COLLECTIONS: Readonly<Partial<Record<CollectionName, BandRule>>> = {
  services: { time: 'startTime' },
  customers: { neededBy: 'services', field: 'customerId' },
};

/** The band's range on the device's clock, in its local days: [from, to) as ISO times. */
export function bandRange(band: PriorityName, now: Date): { from: string; to: string } {
  const today = new Date(now.getFullYear(), now.getMonth(), now.getDate());
  const plusDays = (date: Date, days: number) => new Date(date.getFullYear(), date.getMonth(), date.getDate() + days);
  if (band === 'today') return { from: today.toISOString(), to: plusDays(today, 1).toISOString() };
  const monday = plusDays(today, -((today.getDay() + 6) % 7));
  const sevenDaysOn = plusDays(today, 8);
  const sunday = plusDays(monday, 7);
  return { from: monday.toISOString(), to: (sevenDaysOn > sunday ? sevenDaysOn : sunday).toISOString() };
}

/** The longest range a band pull may ask for: a band is a few days, never a way to read everything. */
export const MAX_BAND_DAYS = 31;

const IsoTime = z.iso.datetime({ offset: true });

/** `from` and `to` of a band pull: both or neither, ISO times, `to` after `from`, at most MAX_BAND_DAYS apart. One message for what is wrong first. */
export const BandQuery = z.object({ from: z.unknown(), to: z.unknown() }).check((ctx) => {
  const { from, to } = ctx.value;
  const fail = (message: string) => void ctx.issues.push({ code: 'custom', message, input: ctx.value });
  if (from === undefined && to === undefined) return;
  if (from === undefined || to === undefined) return fail('from and to go together (a priority band)');
  if (!IsoTime.safeParse(from).success || !IsoTime.safeParse(to).success) return fail('from and to must be ISO times with an offset');
  const span = Date.parse(to as string) - Date.parse(from as string);
  if (span <= 0) return fail('to must be after from');
  if (span > MAX_BAND_DAYS * 86_400_000) return fail(`a band spans at most ${MAX_BAND_DAYS} days`);
});

/**
 * A band already on the device, as a first sync's full pull names it (`heldFrom`, `heldTo`,
 * `heldAt`): the band's range and, per band collection, the position of the device's feed read
 * before any page of the band was (a band page from the start answers them, `heads`). A row at or
 * before that position has not changed since the band was read, so the band brought it if it lies
 * in the band now: a visit in the range, or a customer a visit of the band names that has not
 * changed either. The feed leaves such rows out and nothing else: a row changed since, moved into
 * the range since, or named by a visit that moved into it since, comes in the feed as always.
 */
export interface HeldBand {
  from: string;
  to: string;
  /** Per band collection, the device's feed position before the band was read. */
  at: Record<string, number>;
}

/** `heldAt` as it travels: `services:120,customers:45`. */
export const formatHeldAt = (at: Record<string, number>): string =>
  Object.entries(at)
    .map(([name, seq]) => `${name}:${seq}`)
    .join(',');

const HeldAtText = z
  .string()
  .max(400)
  .regex(/^[A-Za-z]+:\d{1,15}(,[A-Za-z]+:\d{1,15})*$/, 'heldAt lists band collections and positions, such as services:120,customers:45')
  .transform((text) => Object.fromEntries(text.split(',').map((pair) => [pair.split(':')[0]!, Number(pair.split(':')[1])])) as Record<string, number>);

/** `heldFrom`, `heldTo` and `heldAt` of a full pull: all three or none; the range as a band's. */
export const HeldBandQuery = z
  .object({ heldFrom: z.unknown(), heldTo: z.unknown(), heldAt: z.unknown() })
  .check((ctx) => {
    const { heldFrom, heldTo, heldAt } = ctx.value;
    const fail = (message: string) => void ctx.issues.push({ code: 'custom', message, input: ctx.value });
    const given = [heldFrom, heldTo, heldAt].filter((v) => v !== undefined).length;
    if (given === 0) return;
    if (given < 3) return fail('heldFrom, heldTo and heldAt go together (a band the device holds)');
    const range = BandQuery.safeParse({ from: heldFrom, to: heldTo });
    if (!range.success) return fail(`held band: ${range.error.issues[0]!.message}`);
    const at = HeldAtText.safeParse(heldAt);
    if (!at.success) return fail(at.error.issues[0]!.message);
  })
  .transform(({ heldFrom, heldTo, heldAt }): HeldBand | undefined =>
    heldAt === undefined ? undefined : { from: heldFrom as string, to: heldTo as string, at: HeldAtText.parse(heldAt) },
  );
