import { describe, expect, it } from 'vitest';
import { PieceSize } from '../client-sdk/replication/piece-size.js';

/** The pulled documents a device writes at a time: as many as its storage writes within the budget. */
describe('piece size of replica writes', () => {
  it('grows on a storage that writes whole pieces well inside the budget, up to its largest', () => {
    const pieces = new PieceSize(50, 250, 25, 5000);
    const sizes: number[] = [];
    for (let i = 0; i < 8; i++) {
      pieces.took(5, pieces.current);
      sizes.push(pieces.current);
    }
    expect(sizes).toEqual([500, 1000, 2000, 4000, 5000, 5000, 5000, 5000]);
  });

  it('does not grow on a short last piece of a page, however fast', () => {
    const pieces = new PieceSize(50, 250);
    pieces.took(1, 40);
    expect(pieces.current).toBe(250);
  });

  it('shrinks on a storage whose pieces overrun the budget, never below its smallest', () => {
    const pieces = new PieceSize(50, 250, 25, 5000);
    for (let i = 0; i < 10; i++) pieces.took(400, pieces.current);
    expect(pieces.current).toBe(25);
  });

  it('keeps its size while writes stay near the budget', () => {
    const pieces = new PieceSize(50, 250);
    for (let i = 0; i < 5; i++) pieces.took(60, pieces.current);
    expect(pieces.current).toBe(250);
  });
});
