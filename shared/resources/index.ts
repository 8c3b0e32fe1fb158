import type { RecordOf } from '../schema/resource.js';

/** Every resource, in dependency order. Adding one here makes it appear in every derived form. */
import { appointmentResource } from './appointment.js';
import { invoiceLineResource, invoiceResource, paymentApplicationResource, paymentResource } from './billing.js';
import { customerQuotedPriceResource, customerResource } from './customer.js';
import {
  inventoryItemResource,
  inventoryLocationResource,
  stockLevelResource,
  stockMovementResource,
} from './inventory.js';
import { organizationResource } from './organization.js';
import { quoteResource } from './quote.js';
import { serviceTypeResource } from './service-type.js';
import { serviceResource } from './service.js';
import { taxResource } from './tax.js';
import { apiTokenResource, userResource } from './user.js';

export const resources = [
  organizationResource,
  userResource,
  apiTokenResource,
  taxResource,
  serviceTypeResource,
  customerResource,
  customerQuotedPriceResource,
  appointmentResource,
  serviceResource,
  quoteResource,
  inventoryLocationResource,
  inventoryItemResource,
  stockLevelResource,
  stockMovementResource,
  invoiceResource,
  invoiceLineResource,
  paymentResource,
  paymentApplicationResource,
] as const;

type AnyResource = (typeof resources)[number];
/** A resource that replicates to devices. */
export type ReplicatedResource = Extract<AnyResource, { collection: string }>;
/** The name of a replicated collection, e.g. 'services'. */
export type CollectionName = ReplicatedResource['collection'];
/** The document type of a replicated collection: `DocumentOf<'services'>` is `Service`. */
export type DocumentOf<C extends CollectionName> = RecordOf<Extract<ReplicatedResource, { collection: C }>>;

/** The resources that replicate to devices (one RxDB collection each), in dependency order. */
export const replicatedResources: readonly ReplicatedResource[] = resources.filter((r): r is ReplicatedResource => r.collection !== null);

export * from './appointment.js';
export * from './billing.js';
export * from './chemistry.js';
export * from './common.js';
export * from './customer.js';
export * from './inventory.js';
export * from './organization.js';
export * from './photos.js';
export * from './quote.js';
export * from './service-type.js';
export * from './service.js';
export * from './tax.js';
export * from './user.js';
