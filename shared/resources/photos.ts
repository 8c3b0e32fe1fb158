import { defineShape, f } from '../schema/fields.js';

/**
 * Photo metadata as replicated and listed. The bytes live in object storage; `url` is a signed,
 * expiring link filled in when the record is read, never stored.
 */
export const ServicePhotoShape = defineShape('ServicePhoto', {
  id: f.id().doc('Photo id, generated on the device so a retried upload is recognised'),
  url: f.string().nullable().owner('server').doc('Signed, expiring download URL; null until the bytes arrive'),
  caption: f.string().nullable().max(2000),
  contentType: f.string().nullable().owner('server').doc('MIME type detected from the bytes; null until they arrive'),
  size: f.int().nullable().owner('server').doc('Size in bytes; null until the bytes arrive'),
  takenAt: f.dateTime().nullable().doc('When the photo was taken (device clock)'),
});

/** A photo attached to a quote (the spec shows id, url, caption). */
export const QuotePhotoShape = defineShape('QuotePhoto', {
  id: f.id(),
  url: f.string().nullable().owner('server').doc('Signed, expiring download URL'),
  caption: f.string().nullable().max(2000),
  contentType: f.string().nullable().owner('server').doc('MIME type detected from the bytes'),
  size: f.int().nullable().owner('server').doc('Size in bytes'),
});
