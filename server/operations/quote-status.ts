import { errors, type QuoteStatus } from '../../shared/index.js';

/**
 * The quote state machine. DRAFT is the only editable state; a SENT quote is answered by the
 * customer (ACCEPTED, DECLINED) or runs out (EXPIRED). Terminal states do not move.
 */
const NEXT: Record<QuoteStatus, readonly QuoteStatus[]> = {
  DRAFT: ['SENT'],
  SENT: ['ACCEPTED', 'DECLINED', 'EXPIRED'],
  ACCEPTED: [],
  DECLINED: [],
  EXPIRED: [],
};

/** Throws BAD_USER_INPUT naming both states unless `from -> to` is allowed (or no change). */
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
