import { defineShape, f } from '../schema/fields.js';

/** A postal address (used by the organization). */
export const AddressShape = defineShape('Address', {
  street: f.string().nullable().max(500),
  city: f.string().nullable().max(200),
  state: f.string().nullable().max(100),
  zipCode: f.string().nullable().max(20),
});
