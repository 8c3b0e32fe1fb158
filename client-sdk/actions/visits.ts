import { serviceResource, versionToKeep, type Service } from '../../shared/index.js';
import { badInput, notFound, PoolClientError } from '../errors.js';
import type { Replica } from './replica.js';
import { bytesToBase64 } from '../uploads/photo-queue.js';
import { PHOTO_QUEUE } from '../replica/local-collections.js';
import { newId, nowIso } from './validate.js';

/** Visits: recorded and edited on the device first; photos queued for upload. */
export type VisitInput = Partial<Omit<Service, 'id' | 'createdAt' | 'updatedAt' | 'photos' | 'chemicalReadings'>> & {
  /** Chemical readings; any field left out is recorded as not measured (null). */
  readings?: Partial<NonNullable<Service['chemicalReadings']>> | null;
};

const READING_FIELDS = Object.keys(
  (serviceResource.fields.chemicalReadings.meta.kind as { shape: { fields: object } }).shape.fields,
);

function readingsOf(input: VisitInput['readings']): Service['chemicalReadings'] {
  if (input == null) return null;
  const unknown = Object.keys(input).filter((k) => !READING_FIELDS.includes(k));
  if (unknown.length) throw badInput(`recordVisit: unknown readings ${unknown.join(', ')}`);
  return Object.fromEntries(READING_FIELDS.map((k) => [k, (input as Record<string, unknown>)[k] ?? null])) as Service['chemicalReadings'];
}

export async function recordVisit({ db, changes }: Replica, input: VisitInput): Promise<Service> {
  const { readings, ...fields } = input;
  const chemicalReadings = readingsOf(readings);
  // Readings keep the formula version this app balances them with (the visit keeps its numbers).
  const doc = { ...fields, id: newId(), photos: [], chemicalReadings, chemistryVersion: versionToKeep(chemicalReadings, fields.chemistryVersion) };
  if (typeof doc.customerId === 'string' && db.collections.customers && !(await db.collections.customers.findOne(doc.customerId).exec())) {
    throw notFound('Customer', doc.customerId);
  }
  return changes.insert('services', doc, 'recordVisit');
}

export async function updateVisit({ changes }: Replica, id: string, patch: VisitInput): Promise<Service> {
  const { readings, ...fields } = patch;
  return changes
    .update('services', id, 'updateVisit', (current) => {
      if (readings === undefined) return fields;
      const chemicalReadings = readings === null ? null : readingsOf({ ...current.chemicalReadings, ...readings });
      return { ...fields, chemicalReadings, chemistryVersion: versionToKeep(chemicalReadings, fields.chemistryVersion ?? current.chemistryVersion) };
    })
    .catch(rethrowNotFound('Visit', id));
}

/** The replica names a missing document by its collection; actions name it as the app knows it. */
export const rethrowNotFound = (what: string, id: string) => (error: unknown) => {
  throw error instanceof PoolClientError && error.code === 'NOT_FOUND' ? notFound(what, id) : error;
};

export type PhotoBytes = Uint8Array | ArrayBuffer | Blob;

/** Adds a photo to a visit and queues its bytes; returns the photo id. */
export async function addVisitPhoto({ db, changes }: Replica, visitId: string, bytes: PhotoBytes, caption: string | null = null): Promise<string> {
  const visit = await db.collections.services!.findOne(visitId).exec();
  if (!visit) throw notFound('Visit', visitId);
  const data = bytes instanceof Blob ? new Uint8Array(await bytes.arrayBuffer()) : bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : bytes;
  if (data.length === 0) throw badInput('addVisitPhoto: the photo is empty');
  if (caption !== null && (typeof caption !== 'string' || caption.length > 2000)) throw badInput('addVisitPhoto: caption must be text of at most 2000 characters');
  const id = newId();
  const takenAt = nowIso();
  await db.collections[PHOTO_QUEUE]!.insert({
    id,
    parent: 'services',
    parentId: visitId,
    caption,
    contentType: bytes instanceof Blob && bytes.type ? bytes.type : 'application/octet-stream',
    data: bytesToBase64(data),
    queuedAt: takenAt,
    failure: null,
  });
  await changes
    .update('services', visitId, 'addVisitPhoto', (current) => ({ photos: [...(current.photos ?? []), { id, url: null, caption, contentType: null, size: null, takenAt }] }))
    .catch(rethrowNotFound('Visit', visitId));
  return id;
}
