import { f } from '../schema/fields.js';
import { defineResource, type RecordOf } from '../schema/resource.js';
import { ChemicalReadingShape } from './chemistry.js';
import { ServicePhotoShape } from './photos.js';

const tech = () => f.string().nullable().max(200).owner('technician');
const office = () => f.string().nullable().max(200).owner('office');

/**
 * One visit performed for a customer. Technicians write most of it offline; the office owns
 * billing fields. Photos merge as a union by id (shared/sync/README.md says how pushes merge).
 */
export const serviceResource = defineResource({
  name: 'Service',
  table: 'services',
  collection: 'services',
  relations: { customer: 'Customer', type: 'TypeEntity' },
  fields: {
    reference: f.string().nullable().max(100).owner('office'),
    customerId: f.id().nullable(),
    typeId: f.id().nullable(),
    newTechnicianId: f.id().nullable().owner('office').doc('Primary technician (a user id)'),
    newSecondaryTechnicianId: f.id().nullable().owner('office'),
    appointmentId: f.id().nullable(),
    appointmentIdentifierCuid: f.string().nullable().max(100),
    appointmentRecurringRuleId: f.string().nullable().max(100),
    startTime: f.dateTime().nullable().owner('technician'),
    endTime: f.dateTime().nullable().owner('technician'),
    returnAppointmentDate: f.dateTime().nullable().owner('office'),
    billingStatus: office().doc('e.g. NOT_BILLED, READY, INVOICED'),
    flag: office(),
    vacuum: tech().doc('e.g. YES, NO, PARTIAL'),
    waterLevel: tech().doc('e.g. LOW, NORMAL, HIGH'),
    waterCondition: tech().doc('e.g. CLEAR, CLOUDY, GREEN'),
    waterColor: tech(),
    photos: f.list(f.object(ServicePhotoShape)).merge('unionById').owner('technician'),
    notes: f.string().nullable().max(20000).owner('technician'),
    chemicalReadings: f.object(ChemicalReadingShape).nullable().owner('technician'),
    chemistryVersion: f.int().nullable().min(1).owner('technician').doc('The water chemistry formula version the readings were first balanced with; the visit keeps its numbers'),
    dateEmailed: f.dateTime().nullable().owner('server'),
    dateTexted: f.dateTime().nullable().owner('server'),
    createdById: f.id().nullable().owner('server').internal().doc('Who created the visit (their devices hold it)'),
  },
});
export type Service = RecordOf<typeof serviceResource>;
