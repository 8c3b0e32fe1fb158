import { describe, expect, it } from 'vitest';
import { TokenOwners } from '../server/operations/token-owners.js';
import type { TokenOwner } from '../server/storage/tokens.js';

const owner = (tokenId: string, revokedAt: string | null = null): TokenOwner => ({
  tokenId,
  userId: `user-${tokenId}`,
  orgId: 'org',
  role: 'TECHNICIAN',
  createdAt: '2026-11-01T00:00:00.000Z',
  lastUsedAt: null,
  revokedAt,
});

/** A lookup that counts how often the store would be asked. */
function store(answers: Map<string, TokenOwner | null>) {
  const asked: string[] = [];
  return {
    asked,
    load: (hash: string) => async () => {
      asked.push(hash);
      return answers.get(hash) ?? null;
    },
  };
}

describe('kept token owners', () => {
  it('looks a token up once while revocations are heard, and again after its revocation', async () => {
    const owners = new TokenOwners();
    const answers = new Map([['h1', owner('t1')]]);
    const { asked, load } = store(answers);
    owners.listening();
    expect((await owners.ownerOf('h1', load('h1'))).owner?.tokenId).toBe('t1');
    expect(await owners.ownerOf('h1', load('h1'))).toEqual({ owner: owner('t1'), kept: true });
    expect(asked).toEqual(['h1']);
    answers.set('h1', owner('t1', '2026-11-29T10:00:00.000Z'));
    owners.revoked('t1');
    expect((await owners.ownerOf('h1', load('h1'))).owner?.revokedAt).not.toBeNull();
    expect(asked).toEqual(['h1', 'h1']);
  });

  it('keeps nothing before listening, after the connection is lost, or for a revoked or unknown token', async () => {
    const owners = new TokenOwners();
    const { asked, load } = store(new Map([['h1', owner('t1')], ['h2', owner('t2', '2026-11-29T10:00:00.000Z')]]));
    await owners.ownerOf('h1', load('h1'));
    await owners.ownerOf('h1', load('h1'));
    owners.listening();
    await owners.ownerOf('h1', load('h1'));
    owners.deaf();
    await owners.ownerOf('h1', load('h1'));
    await owners.ownerOf('h1', load('h1'));
    owners.listening();
    for (const hash of ['h2', 'h2', 'h3', 'h3']) await owners.ownerOf(hash, load(hash));
    expect(asked).toEqual(['h1', 'h1', 'h1', 'h1', 'h1', 'h2', 'h2', 'h3', 'h3']);
  });

  it('does not keep what a lookup read when a revocation arrived while it was in flight', async () => {
    const owners = new TokenOwners();
    owners.listening();
    let release!: () => void;
    const slow = async () => {
      await new Promise<void>((resolve) => (release = resolve));
      return owner('t1'); // read before the revocation committed
    };
    const pending = owners.ownerOf('h1', slow);
    owners.revoked('t1');
    release();
    expect((await pending).owner?.tokenId).toBe('t1');
    const { asked, load } = store(new Map([['h1', owner('t1', '2026-11-29T10:00:00.000Z')]]));
    expect((await owners.ownerOf('h1', load('h1'))).owner?.revokedAt).not.toBeNull();
    expect(asked).toEqual(['h1']);
  });

  it('moves a kept owner\'s last use with the use recorded', async () => {
    const owners = new TokenOwners();
    owners.listening();
    const { load } = store(new Map([['h1', owner('t1')]]));
    await owners.ownerOf('h1', load('h1'));
    owners.used('h1', '2026-11-29T10:00:00.000Z');
    expect((await owners.ownerOf('h1', load('h1'))).owner?.lastUsedAt).toBe('2026-11-29T10:00:00.000Z');
  });
});
