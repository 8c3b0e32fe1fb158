import { describe, expect, it } from 'vitest';
import { OwnWrites } from '../server/operations/sync/own-writes.js';

/** What the live fan-out sends a stream whose device pushed some of a batch's rows itself. */
describe('a stream is not sent its own pushed rows back', () => {
  const send = (own: OwnWrites, positions: number[]) => {
    const sent: string[] = [];
    own.send((json) => sent.push(json), 'services', positions, 'whole', (from, since) => `from ${from} since ${since}`);
    return sent;
  };

  it('sends everything until its device has pushed, and other collections always', () => {
    const own = new OwnWrites();
    expect(send(own, [5, 6])).toEqual(['whole']);
    own.pushed('customers', 10);
    expect(send(own, [5, 6])).toEqual(['whole']);
  });

  it('leaves out a batch of its own writes alone, and sends what follows them after the last one left out', () => {
    const own = new OwnWrites();
    own.pushed('services', 12);
    expect(send(own, [10, 11, 12])).toEqual([]);
    expect(send(own, [11, 12, 15, 16])).toEqual(['from 2 since 12']);
    expect(send(own, [13, 14])).toEqual(['whole']);
  });

  it('keeps the furthest position its device pushed to', () => {
    const own = new OwnWrites();
    own.pushed('services', 20);
    own.pushed('services', 12);
    expect(send(own, [18, 20])).toEqual([]);
    expect(send(own, [20, 21])).toEqual(['from 1 since 20']);
  });
});
