import { f } from '../schema/fields.js';
import { defineResource, type RecordOf } from '../schema/resource.js';

export const APPOINTMENT_STATUSES = ['SCHEDULED', 'COMPLETED', 'CANCELED', 'SKIPPED'] as const;

/** A scheduled visit slot; a Service records what happened at it. */
export const appointmentResource = defineResource({
  name: 'Appointment',
  table: 'appointments',
  collection: 'appointments',
  fields: {
    customerId: f.id().owner('office'),
    technicianId: f.id().nullable().owner('office'),
    typeId: f.id().nullable().owner('office'),
    identifierCuid: f.string().nullable().owner('office'),
    recurringRuleId: f.string().nullable().owner('office'),
    startTime: f.dateTime().owner('office'),
    endTime: f.dateTime().nullable().owner('office'),
    status: f.enum('AppointmentStatus', APPOINTMENT_STATUSES).owner('shared'),
    notes: f.string().nullable().max(10000),
  },
});
export type Appointment = RecordOf<typeof appointmentResource>;
