import { errors, QUOTE_TRANSITIONS as NEXT, type QuoteStatus } from '../../shared/index.js';

/** Enforces the quote state machine (shared/resources/quote.ts): throws BAD_USER_INPUT naming both states unless `from -> to` is allowed (or no change). */
export function assertQuoteTransition(from: QuoteStatus, to: QuoteStatus): void {
  if (from === to || NEXT[from].includes(to)) return;
  const allowed = NEXT[from].length ? NEXT[from].join(' or ') : 'nothing (it is final)';
  throw errors.badInput(`A quote cannot go from ${from} to ${to}; from ${from} it may go to ${allowed}`, {
    fields: ['status'],
  });
}

export function isEditable(status: QuoteStatus): boolean {
  return status === 'DRAFT';
}
