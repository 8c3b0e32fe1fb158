import { f } from '../schema/fields.js';
import { defineResource, type RecordOf } from '../schema/resource.js';

/** A sales tax applied to quotes. */
export const taxResource = defineResource({
  name: 'Tax',
  table: 'taxes',
  collection: null,
  fields: {
    name: f.string().max(200),
    rate: f.float().doc('Percent, e.g. 8.25 for 8.25 %'),
    isActive: f.boolean(),
  },
});
export type Tax = RecordOf<typeof taxResource>;
