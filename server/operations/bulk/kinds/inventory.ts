import { z } from 'zod';
import { csvColumnsOf, inputValidator, inventoryItemResource } from '../../../../shared/index.js';
import type { Queryable } from '../../../storage/db.js';
import { inventoryIdsMatching, inventoryItems, inventoryPage } from '../../../storage/inventory.js';
import { InventoryFilterInput } from '../../inventory.js';
import { EXPORT_BATCH, exportKind, ids, patchKind, resolveSelection, type KindDefinition } from '../kind.js';

/** Inventory items: change many (not quantities: stock moves through the ledger), export. */

const ItemPatch = inputValidator(inventoryItemResource);
const ItemSelection = z.strictObject({ ids: ids.nullish(), filter: InventoryFilterInput }).refine((s) => s.ids || s.filter !== undefined, 'give ids or a filter');

const itemSelection = (q: Queryable, orgId: string, s: z.output<typeof ItemSelection>) =>
  resolveSelection(q, orgId, { ids: s.ids, match: () => inventoryIdsMatching(q, orgId, s.filter ?? {}) }, inventoryItems, 'items');

const ExportRequest = z.strictObject({ selection: z.strictObject({ filter: InventoryFilterInput }).nullish() });

const inventoryExport = exportKind(
  'INVENTORY_EXPORT',
  ExportRequest,
  async (q, orgId, payload, after) => {
    const filter = payload.selection?.filter ?? {};
    // Items page by name then id; the export reads them in that order with the same window.
    const page = await inventoryPage(q, orgId, filter, { size: EXPORT_BATCH, from: after ? (JSON.parse(after) as string[]) : null, backward: false });
    return { rows: page.rows.map((r) => r.record), last: page.more ? JSON.stringify(page.rows.at(-1)!.keys) : null };
  },
  csvColumnsOf(inventoryItemResource),
  'inventory',
);

export const INVENTORY_KINDS: readonly KindDefinition[] = [
  inventoryExport,
  patchKind('INVENTORY_UPDATE', ItemSelection, ItemPatch, itemSelection, inventoryItems),
];
