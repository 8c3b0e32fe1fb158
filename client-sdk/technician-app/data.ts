import { useMemo } from 'react';
import type { DocumentOf, InventoryLocation } from '../../shared/index.js';
import { useDocs, useSession } from '../app-kit/hooks.js';

/**
 * What the technician app reads from the phone's replica (which holds the technician's own work:
 * shared/sync/scopes.ts), in a few hooks the screens share.
 */
export type Visit = DocumentOf<'services'>;

/** The start and end of a local calendar day, as ISO times. */
export function dayBounds(day: string): [string, string] {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return [new Date(y, m - 1, d).toISOString(), new Date(y, m - 1, d + 1).toISOString()];
}

/** A local date as YYYY-MM-DD. */
export function localDay(date = new Date()): string {
  return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;
}

export function shiftDay(day: string, by: number): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return localDay(new Date(y, m - 1, d + by));
}

/** The day's visits of this technician (primary or secondary), in route order. */
export function useDayVisits(day: string): Visit[] | null {
  const { viewer } = useSession();
  const [from, to] = dayBounds(day);
  const me = viewer.user.id;
  const visits = useDocs('services', { startTime: { $gte: from, $lt: to } }, [from, to]);
  return useMemo(
    () => visits?.filter((v) => v.newTechnicianId === me || v.newSecondaryTechnicianId === me).sort((a, b) => a.startTime!.localeCompare(b.startTime!)) ?? null,
    [visits, me],
  );
}

/** The truck (the location assigned to this technician) and the shared locations (warehouses). */
export function useLocations(): { truck: InventoryLocation | null; warehouses: InventoryLocation[]; loaded: boolean } {
  const { viewer } = useSession();
  const locations = useDocs('inventoryLocations', {}, []);
  return useMemo(
    () => ({
      truck: locations?.find((l) => l.technicianId === viewer.user.id) ?? null,
      warehouses: (locations ?? []).filter((l) => !l.technicianId).sort((a, b) => a.name.localeCompare(b.name)),
      loaded: locations !== null,
    }),
    [locations, viewer.user.id],
  );
}

/** A customer's visits with readings, newest first (the trend, and "last time"). */
export function useCustomerHistory(customerId: string | null | undefined): Visit[] {
  const visits = useDocs('services', customerId ? { customerId } : null, [customerId]);
  return useMemo(() => (visits ?? []).filter((v) => v.startTime).sort((a, b) => b.startTime!.localeCompare(a.startTime!)), [visits]);
}
