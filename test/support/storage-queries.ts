import type { MangoQuery, RxDocumentData, RxJsonSchema } from 'rxdb';
import { randomNumber } from 'rxdb/plugins/utils';
import { schemaObjects, schemas } from 'rxdb/plugins/test-utils';
import { replicaKeysOf, replicaSchemaOf, replicatedResources } from '../../shared/index.js';
import { seeded, storageSchema, stored, type Doc } from './storage-conformance.js';

/**
 * The query cases of the storage conformance suite: a schema, its documents (made by RxDB's
 * test-utils where one fits, with Math.random seeded), and queries on each of its indexes. Some
 * documents are tombstones and some lack a field an index names (a field the schema does not
 * require), as real data does.
 */
export interface QueryScenario {
  name: string;
  schema: RxJsonSchema<RxDocumentData<Doc>>;
  docs: RxDocumentData<Doc>[];
  queries: MangoQuery<Doc>[];
  /**
   * Queries RxDB's memory storage answers otherwise than RxDB's own matcher and sort say (kept so
   * that a release that fixes it is noticed): the SDK's storage must answer them right.
   */
  memoryAnswersWrongly?: MangoQuery<Doc>[];
}

const deletedEvery = (n: number) => (i: number) => ({ deleted: i % n === 0 });

/** test-utils' `human`: one index, on `firstName`; `age` neither indexed nor required. */
function humans(): QueryScenario {
  const docs = seeded(1, () =>
    Array.from({ length: 400 }, (_, i) => {
      const human: Doc = schemaObjects.humanData();
      if (i % 5 === 0) human.firstName = `Same${i % 3}`;
      if (i % 7 === 0) delete human.age;
      return stored(human, deletedEvery(9)(i));
    }),
  );
  const some = docs[3]!.firstName as string;
  return {
    name: "test-utils' human (an index on firstName)",
    schema: storageSchema(schemas.human),
    docs,
    queries: [
      { selector: {}, sort: [{ firstName: 'asc' }] },
      { selector: {}, sort: [{ firstName: 'desc' }], skip: 5, limit: 20 },
      { selector: { firstName: { $gt: 'C', $lt: 'm' } }, sort: [{ firstName: 'asc' }], limit: 30 },
      { selector: { firstName: { $gte: 'Same0', $lte: 'Same2' } }, sort: [{ firstName: 'asc' }] },
      { selector: { firstName: { $eq: 'Same1' } } },
      { selector: { firstName: { $in: ['Same0', 'Same2', some] } }, sort: [{ firstName: 'desc' }] },
      { selector: { firstName: { $eq: null } } },
      { selector: { age: { $eq: null } } },
      { selector: { age: { $gt: 20, $lt: 30 } }, sort: [{ age: 'desc' }, { firstName: 'asc' }] },
      { selector: { _deleted: false }, sort: [{ lastName: 'asc' }], limit: 15 },
      { selector: { _deleted: { $eq: true } }, sort: [{ firstName: 'asc' }] },
      { selector: { _deleted: false, firstName: { $gt: 'Same0' } }, sort: [{ firstName: 'asc' }], skip: 2, limit: 9 },
      { selector: { firstName: { $regex: '^S' } }, sort: [{ firstName: 'asc' }] },
      { selector: { $or: [{ firstName: 'Same0' }, { age: { $lt: 15 } }] }, sort: [{ firstName: 'desc' }] },
      { selector: { firstName: { $ne: 'Same1' }, age: { $exists: true } }, sort: [{ age: 'asc' }], limit: 50 },
      { selector: { firstName: { $nin: ['Same0', 'Same1'] }, _deleted: false }, sort: [{ firstName: 'asc' }], skip: 100 },
      { selector: {}, sort: [{ firstName: 'asc' }], limit: 0 },
    ],
  };
}

/** test-utils' `humanWithSimpleAndCompoundIndexes`: numbers, and a compound index on a field not required. */
function timestamped(): QueryScenario {
  const base = Date.parse('2026-11-28T00:00:00.000Z');
  const docs = seeded(2, () =>
    Array.from({ length: 400 }, (_, i) => {
      const human = { ...schemaObjects.humanWithTimestampData({ age: randomNumber(1, 100), updatedAt: base + ((i * 7919) % 400) * 1000 }) } as Doc;
      if (i % 6 !== 0) human.createdAt = base - (i % 50) * 60_000;
      return stored(human, deletedEvery(11)(i));
    }),
  );
  return {
    name: "test-utils' humanWithSimpleAndCompoundIndexes ([name, id], [age, id], [createdAt, updatedAt, id])",
    schema: storageSchema(schemas.humanWithSimpleAndCompoundIndexes),
    docs,
    queries: [
      { selector: {}, sort: [{ age: 'asc' }] },
      { selector: {}, sort: [{ age: 'desc' }], skip: 10, limit: 25 },
      { selector: { age: { $gte: 30, $lt: 60 } }, sort: [{ age: 'asc' }], limit: 40 },
      { selector: { age: { $in: [10, 20, 30] } } },
      { selector: { age: { $eq: 42 } } },
      // Bounds outside the schema's minimum and maximum (0 and 1500).
      { selector: { age: { $gt: -5, $lt: 2000 } }, sort: [{ age: 'asc' }], limit: 30 },
      { selector: { age: { $gt: 1500 } } },
      { selector: {}, sort: [{ createdAt: 'asc' }, { updatedAt: 'asc' }] },
      { selector: { createdAt: { $gt: base - 20 * 60_000 } }, sort: [{ createdAt: 'desc' }, { updatedAt: 'desc' }], limit: 10 },
      { selector: { createdAt: { $eq: null } } },
      { selector: { _deleted: false }, sort: [{ createdAt: 'asc' }, { updatedAt: 'asc' }] },
      { selector: { name: { $gt: 'M' } }, sort: [{ name: 'asc' }] },
      { selector: { age: { $gt: 10 }, name: { $lt: 'Z' } }, sort: [{ name: 'asc' }] },
      { selector: { _deleted: false, age: { $lte: 50 } }, sort: [{ age: 'desc' }, { name: 'asc' }], skip: 3 },
    ],
    // The planner takes the null for both ends of the index range and counts the selector answered
    // by the index; the memory storage then answers every document of `_deleted: false`.
    memoryAnswersWrongly: [{ selector: { _deleted: false, createdAt: { $eq: null } } }],
  };
}

/** test-utils' `averageSchema` (the one its performance test writes): a nested index and a compound of a number and a string. */
function average(): QueryScenario {
  const docs = seeded(3, () =>
    Array.from({ length: 400 }, (_, i) => {
      const doc = { ...(i % 2 ? schemaObjects.averageSchemaData({ var1: `${i % 2}`, var2: i % 4 }) : schemaObjects.averageSchemaData()) } as Doc;
      if (i % 10 === 0) delete doc.deep;
      return stored(doc, deletedEvery(13)(i));
    }),
  );
  return {
    name: "test-utils' averageSchema (var1, var2, deep.deep1, [var2, var1])",
    schema: storageSchema(schemas.averageSchema()),
    docs,
    queries: [
      { selector: { var2: { $eq: 1 } } },
      { selector: {}, sort: [{ var2: 'asc' }, { var1: 'asc' }] },
      { selector: { var2: 3, var1: '1' } },
      { selector: { var2: { $gt: 1, $lt: 5000 } }, sort: [{ var2: 'desc' }], limit: 50 },
      { selector: {}, sort: [{ 'deep.deep1': 'asc' }] },
      { selector: { 'deep.deep1': { $gt: 'M' } }, sort: [{ 'deep.deep1': 'asc' }] },
      { selector: { 'deep.deep1': { $eq: null } } },
      { selector: { _deleted: false }, sort: [{ 'deep.deep1': 'asc' }] },
      { selector: {} },
      { selector: { var1: { $in: ['0', '1'] } }, sort: [{ var1: 'desc' }, { var2: 'asc' }], skip: 7, limit: 33 },
    ],
  };
}

/** test-utils' `humanSubIndex`: an index on a nested number that some documents lack. */
function nested(): QueryScenario {
  const docs = seeded(4, () =>
    Array.from({ length: 200 }, (_, i) => stored(i % 4 === 0 ? { passportId: schemaObjects.humanData().passportId } : { passportId: schemaObjects.humanData().passportId, other: { age: randomNumber(10, 40) } }, deletedEvery(17)(i))),
  );
  return {
    name: "test-utils' humanSubIndex (other.age, not required)",
    schema: storageSchema(schemas.humanSubIndex),
    docs,
    queries: [
      { selector: {}, sort: [{ 'other.age': 'asc' }] },
      { selector: {} },
      { selector: { _deleted: false }, sort: [{ 'other.age': 'asc' }] },
      { selector: { 'other.age': { $gte: 20 } }, sort: [{ 'other.age': 'desc' }] },
      { selector: { 'other.age': { $eq: null } } },
      { selector: { 'other.age': { $in: [11, 12, 13] } } },
      { selector: { 'other.age': { $lt: 25 } }, sort: [{ 'other.age': 'asc' }], limit: 12 },
    ],
  };
}

/**
 * The replica's visits: the indexes the office board reads by (a day, a technician's day) on a day
 * and a half of visits for three technicians and none, more than a piece of a read (500).
 */
function visits(): QueryScenario {
  const resource = replicatedResources.find((r) => r.collection === 'services')!;
  const stamp = '2026-11-28T08:00:00.000Z';
  const docs = Array.from({ length: 1300 }, (_, i) => {
    const visit: Doc = {
      id: `v${String((i * 7919) % 1300).padStart(4, '0')}`,
      photos: [],
      createdAt: stamp,
      updatedAt: stamp,
      startTime: i % 17 === 0 ? null : new Date(Date.parse('2026-11-28T00:00:00.000Z') + ((i * 37) % 36) * 3_600_000).toISOString(),
      newTechnicianId: ['ana', 'ben', 'cy', null][i % 4],
      notes: `n${i % 5}`,
    };
    return stored({ ...visit, ...replicaKeysOf('services', visit) }, deletedEvery(11)(i));
  });
  const day = { $gte: '2026-11-28T00:00:00.000Z', $lt: '2026-11-29T00:00:00.000Z' };
  return {
    name: "the replica's visits ([startKey], [technicianKey, startKey])",
    schema: storageSchema(replicaSchemaOf(resource)),
    docs,
    queries: [
      { selector: { _deleted: false, startKey: day }, sort: [{ startKey: 'asc' }] },
      { selector: { _deleted: false, startKey: day }, sort: [{ startKey: 'desc' }], skip: 3, limit: 10 },
      { selector: { _deleted: false, startKey: { $gt: '2026-11-28T05:00:00.000Z', $lte: '2026-11-28T20:00:00.000Z' } }, sort: [{ startKey: 'asc' }], limit: 7 },
      { selector: { _deleted: false, technicianKey: 'ben', startKey: day }, sort: [{ technicianKey: 'asc' }, { startKey: 'asc' }] },
      { selector: { _deleted: false, technicianKey: '' }, sort: [{ technicianKey: 'asc' }, { startKey: 'asc' }] },
      { selector: { _deleted: false, startKey: day, notes: 'n2' }, sort: [{ startKey: 'asc' }], limit: 5 },
      { selector: { _deleted: false, notes: { $in: ['n1', 'n3'] } }, sort: [{ id: 'asc' }], skip: 2 },
      { selector: { _deleted: false, startKey: { $gt: '2026-12-01T00:00:00.000Z' } } },
      { selector: { _deleted: false, startKey: day }, sort: [{ startKey: 'asc' }], limit: 0 },
      { selector: { technicianKey: { $in: ['ana', 'cy'] } }, sort: [{ technicianKey: 'desc' }, { startKey: 'desc' }], limit: 40 },
      { selector: { _deleted: false } },
    ],
  };
}

export const QUERY_SCENARIOS: (() => QueryScenario)[] = [humans, timestamped, average, nested, visits];
