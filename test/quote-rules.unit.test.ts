import { describe, expect, it } from 'vitest';
import { QUOTE_STATUSES, type QuoteStatus } from '../shared/index.js';
import { fromMinor, toMinor } from '../shared/index.js';
import { lineAmountMinor, quoteTotals } from '../server/operations/money.js';
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
    [0, 'USD', 0],
    [1.005, 'USD', 101], // binary noise: 1.005 * 100 = 100.49999999999999
    [2.675, 'USD', 268],
    [-1.005, 'USD', -101], // halves round away from zero, both ways
    [0.125, 'USD', 13],
    [19.99, 'USD', 1999],
    [1234567.89, 'USD', 123456789],
    [1250.5, 'JPY', 1251], // yen have no decimals
    [-0.5, 'JPY', -1],
    [12.3455, 'KWD', 12346], // fils are thousandths
    [0.0005, 'KWD', 1],
  ])('toMinor(%s, %s) = %s', (amount, currency, minor) => {
    expect(toMinor(amount, currency)).toBe(minor);
  });

  it('minor units travel back as decimals at the currency precision', () => {
    expect(fromMinor(1999, 'USD')).toBe(19.99);
    expect(fromMinor(-101, 'USD')).toBe(-1.01);
    expect(fromMinor(1251, 'JPY')).toBe(1251);
    expect(fromMinor(12346, 'KWD')).toBe(12.346);
  });

  it.each([
    [3, 19.99, 'USD', 5997],
    [0.5, 0.01, 'USD', 1], // half a cent rounds away from zero
    [1.5, 33.33, 'USD', 5000], // 49.995 -> 50.00
    [2, 0, 'USD', 0],
    [-1, 10.5, 'USD', -1050], // a credit line
    [1.5, 999, 'JPY', 1499], // 1498.5 yen -> 1499 (in hundredths it was 1498.50)
    [3, 1.2345, 'KWD', 3705], // the unit price 1.2345 KWD is kept as 1.235 (1,234.5 fils rounds up); 3 x 1,235 = 3,705
  ])('line of %s x %s %s = %s minor units', (quantity, unitPrice, currency, minor) => {
    expect(lineAmountMinor(quantity, unitPrice, currency)).toBe(minor);
  });

  it.each([
    [[1000, 2000], 0, 'USD', { subtotal: 30, tax: 0, total: 30 }],
    [[1999, 1], 8.25, 'USD', { subtotal: 20, tax: 1.65, total: 21.65 }],
    [[333], 7.5, 'USD', { subtotal: 3.33, tax: 0.25, total: 3.58 }], // 24.975 cents -> 25
    [[], 10, 'USD', { subtotal: 0, tax: 0, total: 0 }],
    [[1999], 10, 'JPY', { subtotal: 1999, tax: 200, total: 2199 }], // 199.9 yen -> 200
    [[12345], 5, 'KWD', { subtotal: 12.345, tax: 0.617, total: 12.962 }], // 617.25 fils -> 617
  ])('totals of %j at %s%% in %s', (lines, rate, currency, totals) => {
    expect(quoteTotals(lines, rate, currency)).toEqual(totals);
  });
});
