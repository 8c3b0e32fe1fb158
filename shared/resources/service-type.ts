import { f } from '../schema/fields.js';
import { defineResource, type RecordOf } from '../schema/resource.js';

/** A kind of visit (the spec's TypeEntity): weekly cleaning, filter clean, repair... */
export const serviceTypeResource = defineResource({
  name: 'TypeEntity',
  table: 'service_types',
  collection: 'serviceTypes',
  fields: {
    display: f.string().owner('office').max(200).doc('Name shown to users'),
    desc: f.string().nullable().owner('office').max(2000).column('description').doc('Description'),
  },
});
export type ServiceType = RecordOf<typeof serviceTypeResource>;
