import { describe, expect, it } from 'vitest';
import { ID_RULE } from '../shared/index.js';
import { caller, ok, tokenFor } from './support/api.js';
import { engines } from './support/engines.js';
import { useTestServer } from './support/fixture.js';
import { gql as post, type TestServer } from './support/server.js';
import { pullAll, pullChanges, pushChanges } from './support/sync.js';

/**
 * Input an attacker sends on purpose: JSON nested thousands of levels, queries nested as deep,
 * ids of 10 KB or with characters no id has, flags of the wrong type, numbers in other notations.
 * Each is answered with a clear error naming the limit or the rule; in a sync push the one bad row
 * is refused or quarantined and the rest apply.
 */
const nested = (levels: number, leaf: unknown = 1): unknown => {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
};
/** The same as JSON text, written out: JSON.stringify itself gives up at a few thousand levels. */
const nestedJson = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

describe.each(engines)('hostile input on %s', (engine) => {
  let server: TestServer;
  let office: string;
  let tech: string;
  let gql: ReturnType<typeof caller>;

  useTestServer(engine, { organization: 'Hostile Pools' }, async (fixture) => {
    ({ server } = fixture);
    office = fixture.token;
    gql = caller(server, office);
    tech = (await tokenFor(server, office, 'TECHNICIAN')).token;
  });

  const CREATE = `mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { id customFields } }`;
  /** POSTs JSON text as it is, for bodies JSON.stringify cannot write. */
  const postJson = async (path: string, token: string, body: string) => {
    const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body });
    return { status: res.status, body: (await res.json()) as any };
  };
  const quarantine = async () => ok(await gql(`{ syncQuarantine(first: 100) { edges { node { documentId document reason } } } }`)).syncQuarantine.edges.map((e: any) => e.node);

  describe('deep and large JSON', () => {
    it('GraphQL: customFields nested 10,000 levels is BAD_USER_INPUT naming the limit, not INTERNAL', async () => {
      const deep = (await postJson('/graphql', office, `{"query": ${JSON.stringify(CREATE)}, "variables": {"input": {"lastName": "Deep", "customFields": ${nestedJson(10_000)}}}}`)).body;
      expect(deep.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(deep.errors?.[0]?.message).toMatch(/nested deeper than 64 levels/);
      // Within what any JSON may nest, but beyond what free-form JSON may: the field's own limit.
      const forty = await gql(CREATE, { input: { lastName: 'Forty', customFields: nested(40) } });
      expect(forty.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(forty.errors?.[0]?.message).toMatch(/customFields: nested deeper than 32 levels \(the limit of free-form JSON\)/);
      const large = await gql(CREATE, { input: { lastName: 'Large', customFields: { notes: 'x'.repeat(70_000) } } });
      expect(large.errors?.[0]?.message).toMatch(/customFields: larger than 65536 bytes as JSON/);
      const fine = ok(await gql(CREATE, { input: { lastName: 'Fine', customFields: { gate: { code: '1234', hours: [8, 17] } } } }));
      expect(fine.createCustomer.customFields).toEqual({ gate: { code: '1234', hours: [8, 17] } });
    });

    it('GraphQL: a document nested 5,000 levels is refused naming the limit, not "Maximum call stack size exceeded"', async () => {
      const selection = await post(server, office, `{ viewer ${'{ a '.repeat(5000)}${'}'.repeat(5000)} }`);
      const literal = await post(server, office, `mutation { createCustomer(input: {lastName: "L", customFields: ${'{a: '.repeat(5000)}1${'}'.repeat(5000)}}) { id } }`);
      for (const answer of [selection, literal]) {
        expect(answer.status).toBe(400);
        expect(answer.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
        expect(answer.errors?.[0]?.message).toMatch(/more than 128 levels deep/);
        expect(answer.errors?.[0]?.message).not.toMatch(/call stack/);
      }
      // The explorer's schema load and ordinary nesting still parse.
      expect(ok(await gql(`{ viewer { user { id } organization { settings { quotePrefix } } } }`)).viewer.user.id).toBeTruthy();
    });

    it('sync: a row nested 10,000 levels is quarantined alone; the well-formed row pushed with it is applied', async () => {
      const good = crypto.randomUUID();
      const deep = crypto.randomUUID();
      const elsewhere = crypto.randomUUID();
      const answer = await postJson('/sync/customers/push', tech, `[
        {"newDocumentState": {"id": "${deep}", "lastName": "Deep", "customFields": ${nestedJson(10_000)}}},
        {"newDocumentState": {"id": "${good}", "lastName": "Good"}},
        {"newDocumentState": {"id": "${elsewhere}", "lastName": "Else"}, "assumedMasterState": {"id": "${elsewhere}", "junk": ${nestedJson(10_000)}}}
      ]`);
      // The last one is deep where no field is: the row as a whole nests too deep.
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual(
        expect.arrayContaining([{ id: deep, _deleted: true }, { id: elsewhere, lastName: 'Else', _deleted: true }, expect.objectContaining({ id: good, lastName: 'Good', _deleted: false })]),
      );
      const docs = (await pullAll(server, office, 'customers')).documents;
      expect(docs.filter((d: any) => [good, deep, elsewhere].includes(d.id)).map((d: any) => d.id)).toEqual([good]);
      const entries = await quarantine();
      expect(entries.find((e: any) => e.documentId === deep)).toMatchObject({ document: { id: deep }, reason: expect.stringMatching(/nested deeper than 64 levels/) });
      expect(entries.find((e: any) => e.documentId === elsewhere)?.reason).toMatch(/nested deeper than 64 levels/);
    });

    it("sync: customFields beyond free-form JSON's limits is quarantined with the limit, the document kept", async () => {
      const id = crypto.randomUUID();
      const answer = await pushChanges(server, tech, 'customers', [{ newDocumentState: { id, lastName: 'Forty', customFields: nested(40) } }]);
      expect(answer.body).toEqual([expect.objectContaining({ id, lastName: 'Forty', _deleted: true })]);
      const entry = (await quarantine()).find((e: any) => e.documentId === id);
      expect(entry.reason).toMatch(/customFields: nested deeper than 32 levels/);
      expect(entry.document.customFields).toEqual(nested(40));
      // Larger than free-form JSON may be: the same, naming the size.
      const large = crypto.randomUUID();
      const big = await pushChanges(server, tech, 'customers', [{ newDocumentState: { id: large, lastName: 'Large', customFields: { notes: 'x'.repeat(70_000) } } }]);
      expect(big.body).toEqual([expect.objectContaining({ id: large, _deleted: true })]);
      expect((await quarantine()).find((e: any) => e.documentId === large)?.reason).toMatch(/customFields: larger than 65536 bytes as JSON/);
    });

    it('REST: a JSON body nested 10,000 levels is 400 naming the limit', async () => {
      const res = await postJson('/bulk-operations', office, `{"kind": "CUSTOMERS_CREATE", "items": [{"lastName": "Deep", "customFields": ${nestedJson(10_000)}}]}`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: { code: 'BAD_USER_INPUT', message: expect.stringMatching(/nested deeper than 64 levels/) } });
    });
  });

  describe('ids', () => {
    const longId = () => Array.from({ length: 10_240 }, () => 'abcdefghijklmnopqrstuvwxyz0123456789'[Math.floor(Math.random() * 36)]).join('');

    it('sync: a 10 KB id, a NUL, a space or a slash in an id is that row refused; the other rows apply', async () => {
      const good = [crypto.randomUUID(), crypto.randomUUID()];
      const bad = [longId(), 'nul\u0000id', 'has space', '../../etc/passwd'];
      const answer = await pushChanges(server, tech, 'customers', [
        { newDocumentState: { id: good[0], lastName: 'Before' } },
        ...bad.map((id) => ({ newDocumentState: { id, lastName: 'Bad id' } })),
        { newDocumentState: { id: good[1], lastName: 'After' } },
      ]);
      expect(answer.status).toBe(200);
      expect(answer.body.filter((d: any) => d._deleted).map((d: any) => d.id).sort()).toEqual([...bad].sort());
      const docs = (await pullAll(server, office, 'customers')).documents;
      expect(docs.filter((d: any) => good.includes(d.id))).toHaveLength(2);
      const entries = (await quarantine()).filter((e: any) => e.reason.includes(ID_RULE));
      expect(entries.map((e: any) => e.document.id).sort()).toEqual([...bad].sort().map((id) => id.replace('\u0000', '\ufffd')));
      // Filed under an id that fits an index; the document keeps the one sent.
      for (const entry of entries) expect(entry.documentId.length).toBeLessThanOrEqual(128);
    });

    it('a reference breaking the id rule is refused in the same words by GraphQL, REST and sync', async () => {
      const bad = longId();
      const byGraphQL = await gql(`mutation($i: CreateServiceInput!) { createService(input: $i) { id } }`, { i: { customerId: bad } });
      expect(byGraphQL.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(byGraphQL.errors?.[0]?.message).toContain(`customerId: ${ID_RULE}`);
      const byRest = await fetch(`${server.url}/inventory/transfer`, {
        method: 'POST',
        headers: { authorization: `Bearer ${office}`, 'content-type': 'application/json' },
        body: JSON.stringify({ itemId: 'has space', fromLocationId: 'a', toLocationId: 'b', quantity: 1 }),
      });
      expect(byRest.status).toBe(400);
      expect(((await byRest.json()) as any).error.message).toContain(`itemId: ${ID_RULE}`);
      const visit = crypto.randomUUID();
      await pushChanges(server, tech, 'services', [{ newDocumentState: { id: visit, customerId: 'has space', photos: [] } }]);
      expect((await quarantine()).find((e: any) => e.documentId === visit)?.reason).toContain(`customerId: ${ID_RULE}`);
    });
  });

  describe('text jsonb cannot hold', () => {
    // Half an emoji (a string cut between its surrogates, as a careless truncation does) and a NUL.
    const lone = 'cut emoji \ud83d';

    it('sync: a lone surrogate or a NUL in a new document is that row quarantined, kept readable; the other row applies', async () => {
      const [surrogate, nul, good] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
      const answer = await pushChanges(server, tech, 'customers', [
        { newDocumentState: { id: surrogate, lastName: 'Lone', customFields: { note: lone } } },
        { newDocumentState: { id: nul, lastName: 'Nul', customFields: { ['key\u0000']: 'a\\u0000b\u0000' } } },
        { newDocumentState: { id: good, lastName: 'Good' } },
      ]);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual(expect.arrayContaining([expect.objectContaining({ id: surrogate, _deleted: true }), expect.objectContaining({ id: nul, _deleted: true })]));
      const docs = (await pullAll(server, office, 'customers')).documents;
      expect(docs.filter((d: any) => [surrogate, nul, good].includes(d.id)).map((d: any) => d.id)).toEqual([good]);
      const entries = await quarantine();
      expect(entries.find((e: any) => e.documentId === surrogate)).toMatchObject({ document: { lastName: 'Lone', customFields: { note: 'cut emoji \ufffd' } }, reason: expect.stringMatching(/could not be stored/) });
      // Only the characters jsonb refuses are replaced: an escaped backslash stays as typed.
      expect(entries.find((e: any) => e.documentId === nul)?.document.customFields).toEqual({ ['key\ufffd']: 'a\\u0000b\ufffd' });
    });

    it("sync: a lone surrogate in a value that loses a merge is logged as the conflict's lost value; the push applies", async () => {
      const id = crypto.randomUUID();
      await pushChanges(server, tech, 'services', [{ newDocumentState: { id, notes: 'Arrived', photos: [] } }]);
      const base = (await pullAll(server, office, 'services')).documents.find((d: any) => d.id === id);
      expect((await pushChanges(server, tech, 'services', [{ assumedMasterState: base, newDocumentState: { ...base, notes: 'Shocked' } }])).status).toBe(200);
      // The office's note loses to the technician's (theirs to write): logged with what it held.
      const answer = await pushChanges(server, office, 'services', [{ assumedMasterState: base, newDocumentState: { ...base, notes: lone } }]);
      expect(answer.status).toBe(200);
      const log = ok(await gql(`query($id: ID) { syncConflicts(filter: {documentId: $id}) { edges { node { field keptValue lostValue } } } }`, { id })).syncConflicts.edges.map((e: any) => e.node);
      expect(log).toEqual([{ field: 'notes', keptValue: 'Shocked', lostValue: 'cut emoji \ufffd' }]);
    });
  });

  describe('flags and numbers', () => {
    it('sync: `_deleted: "yes"` is refused, not taken for false; the other row applies', async () => {
      const existing = crypto.randomUUID();
      expect((await pushChanges(server, tech, 'customers', [{ newDocumentState: { id: existing, lastName: 'Kept' } }])).status).toBe(200);
      const fresh = crypto.randomUUID();
      const good = crypto.randomUUID();
      const answer = await pushChanges(server, tech, 'customers', [
        { newDocumentState: { id: existing, lastName: 'Changed', _deleted: 'yes' } },
        { newDocumentState: { id: fresh, lastName: 'New', _deleted: 'yes' } },
        { newDocumentState: { id: good, lastName: 'Good' } },
      ]);
      // The stored document is answered as it is (the device adopts it); the new one is a tombstone.
      expect(answer.body).toEqual([
        expect.objectContaining({ id: existing, lastName: 'Kept', _deleted: false }),
        expect.objectContaining({ id: fresh, _deleted: true }),
        expect.objectContaining({ id: good, lastName: 'Good', _deleted: false }),
      ]);
      const docs = (await pullAll(server, office, 'customers')).documents;
      expect(docs.find((d: any) => d.id === existing)).toMatchObject({ lastName: 'Kept', _deleted: false });
      expect(docs.some((d: any) => d.id === fresh)).toBe(false);
      expect((await quarantine()).find((e: any) => e.documentId === fresh)?.reason).toMatch(/_deleted: must be true or false/);
    });

    it('pull and push take checkpoints and limits, and a REST list its page size, as decimal integers only', async () => {
      for (const [checkpoint, limit] of [['0x10', '10'], ['1e3', '10'], ['16', '1e3'], ['7.0', '10'], ['%207', '10'], ['0', '0x10']]) {
        const res = await fetch(`${server.url}/sync/customers/pull?checkpoint=${checkpoint}&limit=${limit}`, { headers: { authorization: `Bearer ${office}` } });
        expect(res.status, `${checkpoint} ${limit}`).toBe(400);
        expect(((await res.json()) as any).error.message).toMatch(/must be a decimal integer/);
      }
      expect((await pullChanges(server, office, 'customers', 16, 1000)).status).toBe(200);
      const push = await pushChanges(server, office, 'customers', [{ newDocumentState: { id: crypto.randomUUID(), lastName: 'Hex' } }], '0x10');
      expect(push.status).toBe(400);
      expect(push.body.error.message).toMatch(/must be a decimal integer/);
      // A REST list's page size the same way.
      for (const first of ['0x10', '1e1', '16']) {
        const list = await fetch(`${server.url}/bulk-operations?first=${first}`, { headers: { authorization: `Bearer ${office}` } });
        expect(list.status, first).toBe(first === '16' ? 200 : 400);
        if (first !== '16') expect(((await list.json()) as any).error.message).toMatch(/first: must be a decimal integer/);
      }
    });
  });
});
