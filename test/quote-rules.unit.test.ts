import { describe, expect, it } from 'vitest';
import { QUOTE_STATUSES, type QuoteStatus } from '../shared/index.js';
import { fromCents, lineAmountCents, quoteTotals, toCents } from '../server/operations/money.js';
import { assertEditable, assertQuoteTransition, whyMayNotChangeQuote } from '../server/operations/quote-rules.js';

/** Pure rules, table-driven: every quote status pair, and money rounding at its edges. */
describe('quote status transitions', () => {
  const allowed: Record<QuoteStatus, QuoteStatus[]> = {
    DRAFT: ['DRAFT', 'SENT'],
    SENT: ['SENT', 'ACCEPTED', 'DECLINED', 'EXPIRED'],
    ACCEPTED: ['ACCEPTED'],
    DECLINED: ['DECLINED'],
    EXPIRED: ['EXPIRED'],
  };
  const pairs = QUOTE_STATUSES.flatMap((from) => QUOTE_STATUSES.map((to) => [from, to] as const));

  it.each(pairs)('%s -> %s', (from, to) => {
    if (allowed[from].includes(to)) {
      expect(() => assertQuoteTransition(from, to)).not.toThrow();
    } else {
      expect(() => assertQuoteTransition(from, to)).toThrow(new RegExp(`cannot go from ${from} to ${to}`));
    }
  });

  it('says where a quote may go, and that a final one goes nowhere', () => {
    expect(() => assertQuoteTransition('DRAFT', 'ACCEPTED')).toThrow('from DRAFT it may go to SENT');
    expect(() => assertQuoteTransition('ACCEPTED', 'SENT')).toThrow('nothing (it is final)');
  });

  it('only a DRAFT is editable', () => {
    const editable = (status: (typeof QUOTE_STATUSES)[number]) => {
      try {
        assertEditable({ number: 'Q-1', status });
        return true;
      } catch {
        return false;
      }
    };
    expect(QUOTE_STATUSES.filter(editable)).toEqual(['DRAFT']);
    expect(() => assertEditable({ number: 'Q-7', status: 'SENT' })).toThrow('Quote Q-7 is SENT: only DRAFT quotes can be edited');
  });

  it('the office changes any quote; a technician only the quotes they created', () => {
    const viewer = (role: 'ADMIN' | 'OFFICE' | 'API' | 'TECHNICIAN', userId = 'u1') => ({ role, userId, orgId: 'o', tokenId: 't' });
    for (const role of ['ADMIN', 'OFFICE', 'API'] as const) expect(whyMayNotChangeQuote(viewer(role), { createdById: 'someone else' })).toBeNull();
    expect(whyMayNotChangeQuote(viewer('TECHNICIAN'), { createdById: 'u1' })).toBeNull();
    expect(whyMayNotChangeQuote(viewer('TECHNICIAN'), { createdById: 'u2' })).toBe('A TECHNICIAN may change only the quotes they created');
    expect(whyMayNotChangeQuote(viewer('TECHNICIAN'), { createdById: null })).not.toBeNull();
  });
});

describe('money', () => {
  it.each([
    [0, 0],
    [1.005, 101], // binary noise: 1.005 * 100 = 100.49999999999999
    [2.675, 268],
    [-1.005, -101], // halves round away from zero, both ways
    [0.125, 13],
    [19.99, 1999],
    [1234567.89, 123456789],
  ])('toCents(%s) = %s', (amount, cents) => {
    expect(toCents(amount)).toBe(cents);
  });

  it('cents travel back as decimals', () => {
    expect(fromCents(1999)).toBe(19.99);
    expect(fromCents(-101)).toBe(-1.01);
  });

  it.each([
    [3, 19.99, 5997],
    [0.5, 0.01, 1], // half a cent rounds away from zero
    [1.5, 33.33, 5000], // 49.995 -> 50.00
    [2, 0, 0],
    [-1, 10.5, -1050], // a credit line
  ])('line of %s x %s = %s cents', (quantity, unitPrice, cents) => {
    expect(lineAmountCents(quantity, unitPrice)).toBe(cents);
  });

  it.each([
    [[1000, 2000], 0, { subtotal: 30, tax: 0, total: 30 }],
    [[1999, 1], 8.25, { subtotal: 20, tax: 1.65, total: 21.65 }],
    [[333], 7.5, { subtotal: 3.33, tax: 0.25, total: 3.58 }], // 24.975 cents -> 25
    [[], 10, { subtotal: 0, tax: 0, total: 0 }],
  ])('totals of %j at %s%%', (lines, rate, totals) => {
    expect(quoteTotals(lines, rate)).toEqual(totals);
  });
});
