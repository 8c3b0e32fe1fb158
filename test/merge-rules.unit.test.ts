import { describe, expect, it } from 'vitest';
import { customerResource, serviceResource, type Role } from '../shared/index.js';
import { mergeDocument } from '../server/operations/sync/merge.js';
import { type Doc } from '../server/operations/sync/doc.js';

/**
 * The server's three-way merge of a pushed document, as tables: for each kind of field owner, who
 * pushed, and which sides changed the field since the base, what is kept and what the conflict
 * log hears. (Deletes and refusals happen before the merge, in push.ts; the protocol tests cover
 * them.)
 */
const A = 'base value';
const OURS = 'device value';
const THEIRS = 'server value';

type Case = [string, Role, { base: unknown; ours: unknown; theirs: unknown }, unknown, unknown];

/** [field, pusher, values, kept, lost (undefined: no conflict logged)] */
const visitCases: Case[] = [
  // technician-owned (notes): a clash goes to a technician's push, never to the office's
  ['notes', 'TECHNICIAN', { base: A, ours: OURS, theirs: A }, OURS, undefined],
  ['notes', 'OFFICE', { base: A, ours: OURS, theirs: A }, OURS, undefined],
  ['notes', 'OFFICE', { base: A, ours: A, theirs: THEIRS }, THEIRS, undefined],
  ['notes', 'TECHNICIAN', { base: A, ours: OURS, theirs: OURS }, OURS, undefined],
  ['notes', 'TECHNICIAN', { base: A, ours: OURS, theirs: THEIRS }, OURS, THEIRS],
  ['notes', 'OFFICE', { base: A, ours: OURS, theirs: THEIRS }, THEIRS, OURS],
  ['notes', 'ADMIN', { base: A, ours: OURS, theirs: THEIRS }, THEIRS, OURS],
  // office-owned (flag): a clash goes to any push but a technician's
  ['flag', 'OFFICE', { base: A, ours: OURS, theirs: THEIRS }, OURS, THEIRS],
  ['flag', 'API', { base: A, ours: OURS, theirs: THEIRS }, OURS, THEIRS],
  ['flag', 'TECHNICIAN', { base: A, ours: OURS, theirs: THEIRS }, THEIRS, OURS],
  ['flag', 'TECHNICIAN', { base: A, ours: OURS, theirs: A }, OURS, undefined],
  // no base (a device that never saw the server's state): any difference is a clash
  ['notes', 'TECHNICIAN', { base: undefined, ours: OURS, theirs: THEIRS }, OURS, THEIRS],
  ['flag', 'TECHNICIAN', { base: undefined, ours: OURS, theirs: THEIRS }, THEIRS, OURS],
  ['notes', 'OFFICE', { base: undefined, ours: OURS, theirs: OURS }, OURS, undefined],
  // server-owned (dateEmailed): never taken from a device, never a clash
  ['dateEmailed', 'TECHNICIAN', { base: null, ours: '2026-01-01T00:00:00.000Z', theirs: null }, null, undefined],
  ['dateEmailed', 'ADMIN', { base: null, ours: '2026-01-01T00:00:00.000Z', theirs: '2026-02-02T00:00:00.000Z' }, '2026-02-02T00:00:00.000Z', undefined],
];

function merge(resource: typeof serviceResource | typeof customerResource, field: string, pusher: Role, v: { base: unknown; ours: unknown; theirs: unknown }) {
  const base = v.base === undefined ? null : { id: 'd1', [field]: v.base };
  const ours: Doc = { id: 'd1', [field]: v.ours };
  const theirs: Doc = { id: 'd1', [field]: v.theirs };
  return mergeDocument(resource, base, ours, theirs, pusher);
}

describe('merge of plain fields', () => {
  it.each(visitCases)('%s pushed by %s, %j: keeps %j, logs %j as lost', (field, pusher, values, kept, lost) => {
    const { merged, clashes } = merge(serviceResource, field, pusher, values);
    expect(merged[field]).toEqual(kept);
    expect(clashes.map((c) => c.lost)).toEqual(lost === undefined ? [] : [lost]);
    if (lost !== undefined) expect(clashes[0]).toMatchObject({ field, kept, lost });
  });

  it('gives a shared field to the newest push, whoever pushed it, and names the rule', () => {
    for (const pusher of ['TECHNICIAN', 'OFFICE'] as const) {
      const { merged, clashes } = merge(customerResource, 'phoneNumber', pusher, { base: A, ours: OURS, theirs: THEIRS });
      expect(merged.phoneNumber).toBe(OURS);
      expect(clashes).toEqual([{ field: 'phoneNumber', kept: OURS, lost: THEIRS, rule: 'shared field: the newest write wins' }]);
    }
    const { clashes } = merge(serviceResource, 'notes', 'OFFICE', { base: A, ours: OURS, theirs: THEIRS });
    expect(clashes[0]!.rule).toBe('technician-owned field, pushed by OFFICE');
  });

  it('leaves alone what the device did not send', () => {
    const { merged, clashes } = mergeDocument(serviceResource, { id: 'd1', notes: A }, { id: 'd1', flag: 'X' }, { id: 'd1', notes: THEIRS, flag: null }, 'OFFICE');
    expect(merged).toMatchObject({ notes: THEIRS, flag: 'X' });
    expect(clashes).toEqual([]);
  });
});

describe('merge of tags (a set)', () => {
  it.each([
    ['both add', ['a'], ['a', 'b'], ['a', 'c'], ['a', 'c', 'b']],
    ['the device removes, the server adds', ['a', 'b'], ['b'], ['a', 'b', 'd'], ['b', 'd']],
    ['the server removes, the device adds', ['a', 'b'], ['a', 'b', 'c'], ['a'], ['a', 'c']],
    ['both remove the same', ['a', 'b'], ['a'], ['a'], ['a']],
    ['the device clears them', ['a', 'b'], [], ['a', 'b', 'e'], ['e']],
  ])('%s', (_, base, ours, theirs, expected) => {
    const { merged, clashes } = merge(customerResource, 'tags', 'TECHNICIAN', { base, ours, theirs });
    expect(merged.tags).toEqual(expected);
    expect(clashes).toEqual([]);
  });
});

describe('merge of photos (united by id)', () => {
  const photo = (id: string, fields: Record<string, unknown> = {}) => ({ id, url: null, caption: null, contentType: null, size: null, takenAt: null, ...fields });

  it('keeps every photo either side has, the server\'s first, and the server\'s parts of each', () => {
    const base = [photo('p1')];
    const ours = [photo('p1', { caption: 'Skimmer' }), photo('p2')];
    const theirs = [photo('p1', { size: 4096, contentType: 'image/jpeg' }), photo('p3')];
    const { merged, clashes } = merge(serviceResource, 'photos', 'OFFICE', { base, ours, theirs });
    expect(merged.photos).toEqual([photo('p1', { caption: 'Skimmer', size: 4096, contentType: 'image/jpeg' }), photo('p3'), photo('p2')]);
    expect(clashes).toEqual([]);
  });

  it('does not take a device\'s size or type for bytes only the server has seen', () => {
    const { merged } = merge(serviceResource, 'photos', 'TECHNICIAN', {
      base: [photo('p1')],
      ours: [photo('p1', { size: 1, contentType: 'text/plain' })],
      theirs: [photo('p1', { size: 4096, contentType: 'image/jpeg' })],
    });
    expect(merged.photos).toEqual([photo('p1', { size: 4096, contentType: 'image/jpeg' })]);
  });
});
