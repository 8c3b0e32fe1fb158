/**
 * What happens that an integrator is told of: every event type, declared once, here, as rules on
 * the tables whose changes make them. The server turns these rules into statement triggers
 * (server/storage/event-sql.ts), so an event is written in the transaction of its change whatever
 * made the change (GraphQL, a device's sync push, a bulk operation, a worker), and the
 * documentation lists them from here (server/operations/events/README.md).
 *
 * A changed row makes at most one event: the first rule of its table that matches it (one
 * change, one event). Payloads are thin: the record's `id` and a few fields that say what
 * happened; the receiver reads the record itself through GraphQL.
 *
 * Adding an event type is adding a rule here (or a table with its rules): no other code changes.
 */

/** A state a row is in, read from the row's own fields (field names as in shared/resources). */
export type EventCondition =
  /** The field holds a value (is not null). */
  | { readonly set: string }
  /** The field holds exactly this value. */
  | { readonly equals: string; readonly value: string | boolean }
  /** The row is deleted (soft: `deleted`, a replicated table's tombstone). */
  | { readonly deleted: true }
  /**
   * A stock level is low: at or below its item's reorder point, or below zero whatever the
   * reorder point (the rule of the low-stock list, `lowStock: true`).
   */
  | { readonly lowStock: true }
  /** Every one of these holds. */
  | { readonly all: readonly EventCondition[] };

export type RowChange = 'insert' | 'update';

export interface EventRule {
  /** Lower-case and dotted, `<resource>.<what happened>` (Standard Webhooks' and Stripe's style). */
  readonly type: string;
  /** The kinds of change the rule looks at: a new row, a changed one. */
  readonly on: readonly RowChange[];
  /**
   * The change puts the row into this state: it was not in it before the change (a new row was
   * in no state before). Absent: any insert, or (with `changes`) any update that changed a field.
   */
  readonly enters?: EventCondition;
  /** Fields of the row carried in the event's data beside its id. */
  readonly data?: readonly string[];
  /** The data's `id` is this field's value instead of the row's own id. */
  readonly id?: string;
  /**
   * The data carries `changes`: the names of the fields the update changed (`deleted` for a
   * tombstone set or cleared). An update that changed no field makes no event.
   */
  readonly changes?: boolean;
  /** What the event means, for the documentation. */
  readonly doc: string;
}

export interface EventSource {
  /**
   * The table whose changes make the events: a resource's (shared/resources; its field names are
   * the resource's) or one of the server's job tables (`bulk_operations`, `outbox`).
   */
  readonly table: string;
  /** In order: a changed row makes the event of the first rule that matches it. */
  readonly rules: readonly EventRule[];
}

const record = (name: string) => `The ${name}'s id`;

export const EVENT_SOURCES: readonly EventSource[] = [
  {
    table: 'customers',
    rules: [
      { type: 'customer.created', on: ['insert'], doc: `A customer was created. data: {id}: ${record('customer')}.` },
      { type: 'customer.deleted', on: ['update'], enters: { deleted: true }, doc: 'A customer was deleted (softly: listed with filters.deleted). data: {id}.' },
      {
        type: 'customer.updated',
        on: ['update'],
        changes: true,
        doc: 'Any other change of a customer. data: {id, changes}: changes names the fields that changed (`deleted` when a deleted customer is restored).',
      },
    ],
  },
  {
    table: 'services',
    rules: [
      {
        type: 'visit.completed',
        on: ['insert', 'update'],
        enters: { set: 'endTime' },
        data: ['customerId', 'endTime'],
        doc: 'A visit got its end time: it was completed (also a visit first synced already completed). data: {id, customerId, endTime}.',
      },
      { type: 'visit.deleted', on: ['update'], enters: { deleted: true }, data: ['customerId'], doc: 'A visit was deleted. data: {id, customerId}.' },
      { type: 'visit.created', on: ['insert'], data: ['customerId', 'startTime'], doc: 'A visit was created (not yet completed). data: {id, customerId, startTime}.' },
      {
        type: 'visit.updated',
        on: ['update'],
        changes: true,
        data: ['customerId'],
        doc: 'Any other change of a visit (readings, notes, photos, times, billing status, the report dates...). data: {id, customerId, changes}.',
      },
    ],
  },
  {
    table: 'quotes',
    rules: [
      { type: 'quote.created', on: ['insert'], data: ['customerId', 'number'], doc: 'A quote was created (DRAFT). data: {id, customerId, number}.' },
      { type: 'quote.sent', on: ['update'], enters: { equals: 'status', value: 'SENT' }, data: ['customerId', 'number'], doc: 'A quote was sent. data: {id, customerId, number}.' },
      {
        type: 'quote.accepted',
        on: ['update'],
        enters: { equals: 'status', value: 'ACCEPTED' },
        data: ['customerId', 'number', 'acceptedAt'],
        doc: 'A quote was accepted. data: {id, customerId, number, acceptedAt}.',
      },
      { type: 'quote.declined', on: ['update'], enters: { equals: 'status', value: 'DECLINED' }, data: ['customerId', 'number'], doc: 'A quote was declined. data: {id, customerId, number}.' },
      { type: 'quote.expired', on: ['update'], enters: { equals: 'status', value: 'EXPIRED' }, data: ['customerId', 'number'], doc: 'A quote expired. data: {id, customerId, number}.' },
      { type: 'quote.deleted', on: ['update'], enters: { deleted: true }, data: ['customerId', 'number'], doc: 'A quote was deleted. data: {id, customerId, number}.' },
      { type: 'quote.updated', on: ['update'], changes: true, data: ['customerId'], doc: 'Any other change of a quote (a DRAFT edited). data: {id, customerId, changes}.' },
    ],
  },
  {
    table: 'invoices',
    rules: [
      {
        type: 'invoice.finalized',
        on: ['insert', 'update'],
        enters: { set: 'finalizedAt' },
        data: ['customerId', 'number'],
        doc: 'An invoice was finalized: numbered, issued, its money frozen (status OPEN, or PAID when nothing is owed). data: {id, customerId, number}.',
      },
      { type: 'invoice.paid', on: ['update'], enters: { equals: 'status', value: 'PAID' }, data: ['customerId', 'number'], doc: 'Nothing is owed on an invoice any more (status PAID). data: {id, customerId, number}.' },
      { type: 'invoice.voided', on: ['update'], enters: { set: 'voidedAt' }, data: ['customerId', 'number'], doc: 'An invoice was voided (withdrawn; its work may be billed again). data: {id, customerId, number}.' },
    ],
  },
  {
    table: 'payments',
    rules: [
      { type: 'payment.recorded', on: ['insert'], enters: { equals: 'kind', value: 'PAYMENT' }, data: ['customerId'], doc: 'A payment was recorded (by the office, an integration or a device that took it). data: {id, customerId}.' },
      {
        type: 'payment.reversed',
        on: ['insert'],
        enters: { equals: 'kind', value: 'REVERSAL' },
        data: ['customerId', 'reversesPaymentId'],
        doc: 'A payment was reversed (a bounced check, a refund): the reversal is a payment entry of its own. data: {id, customerId, reversesPaymentId}: id is the reversal\'s, reversesPaymentId the payment it reverses.',
      },
    ],
  },
  {
    table: 'stock_levels',
    rules: [
      {
        type: 'inventory.low_stock',
        on: ['insert', 'update'],
        enters: { lowStock: true },
        data: ['itemId', 'locationId', 'quantity'],
        doc: "An item's stock at a location went to or below the item's reorder point, or below zero: once per crossing (it must rise above again to make another). data: {id, itemId, locationId, quantity}: id is the stock level's (`<itemId>@<locationId>`).",
      },
    ],
  },
  {
    table: 'bulk_operations',
    rules: [
      {
        type: 'bulk_operation.finished',
        on: ['update'],
        enters: { set: 'finishedAt' },
        data: ['kind', 'status'],
        doc: 'A bulk operation finished: SUCCEEDED, PARTIAL, FAILED or CANCELLED. Each record it changed made its own event as well. data: {id, kind, status}.',
      },
    ],
  },
  {
    table: 'outbox',
    rules: [
      {
        type: 'visit_report.sent',
        on: ['update'],
        enters: { all: [{ equals: 'status', value: 'SENT' }, { set: 'serviceId' }] },
        id: 'serviceId',
        data: ['channel'],
        doc: "A visit's report went to its customer, by one channel (one event per channel). data: {id, channel}: id is the visit's; channel EMAIL or SMS.",
      },
    ],
  },
];

/** Every event type, in the order declared. */
export const EVENT_TYPES: readonly string[] = EVENT_SOURCES.flatMap((s) => s.rules.map((r) => r.type));

/** Event type -> what it means and what its data holds. */
export const EVENT_TYPE_DOCS: Readonly<Record<string, string>> = Object.fromEntries(EVENT_SOURCES.flatMap((s) => s.rules.map((r) => [r.type, r.doc])));

export const isEventType = (type: string): boolean => EVENT_TYPES.includes(type);

/** How long events stay in the feed (and can be redelivered). */
export const EVENT_RETENTION_DAYS = 30;
