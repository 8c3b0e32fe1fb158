import { CUSTOMER_KINDS } from './kinds/customers.js';
import { INVENTORY_KINDS } from './kinds/inventory.js';
import { INVOICE_KINDS } from './kinds/invoices.js';
import { MESSAGE_KINDS } from './kinds/messages.js';
import { SERVICE_KINDS } from './kinds/services.js';
import type { KindDefinition } from './kind.js';

/** Every bulk-operation kind, by resource (kinds/*.ts); kind.ts says what a kind is. */
export const BULK_KINDS: readonly KindDefinition[] = [...CUSTOMER_KINDS, ...MESSAGE_KINDS, ...INVENTORY_KINDS, ...SERVICE_KINDS, ...INVOICE_KINDS];

export const BULK_KIND_NAMES = BULK_KINDS.map((k) => k.kind);
export const kindNamed = (name: string) => BULK_KINDS.find((k) => k.kind === name);

export type { ChunkedKind, ChunkResultFile, ExportKind, ItemOutcome, KindDefinition } from './kind.js';
export { MAX_BULK_ITEMS } from './kind.js';
