import { errors, QUOTE_TRANSITIONS as NEXT, type Quote, type QuoteStatus } from '../../shared/index.js';
import { OFFICE_ROLES, type Viewer } from './context.js';

/**
 * The quote rules, written once and used by GraphQL, REST uploads and sync pushes alike: the state
 * machine (shared/resources/quote.ts), "only a DRAFT is edited", and "a technician changes only the
 * quotes they created".
 */

/** Throws BAD_USER_INPUT naming both states unless `from -> to` is allowed (or no change). */
export function assertQuoteTransition(from: QuoteStatus, to: QuoteStatus): void {
  if (from === to || NEXT[from].includes(to)) return;
  const allowed = NEXT[from].length ? NEXT[from].join(' or ') : 'nothing (it is final)';
  throw errors.badInput(`A quote cannot go from ${from} to ${to}; from ${from} it may go to ${allowed}`, {
    fields: ['status'],
  });
}

/** Throws BAD_USER_INPUT unless the quote's content may change (only a DRAFT's may). */
export function assertEditable(quote: Pick<Quote, 'number' | 'status'>, fields?: string[]): void {
  if (quote.status === 'DRAFT') return;
  throw errors.badInput(`Quote ${quote.number} is ${quote.status}: only DRAFT quotes can be edited`, fields ? { fields } : undefined);
}

/** Why this viewer may not change this quote, or null when they may. */
export function whyMayNotChangeQuote(viewer: Viewer, quote: Pick<Quote, 'createdById'>): string | null {
  if (OFFICE_ROLES.includes(viewer.role) || quote.createdById === viewer.userId) return null;
  return `A ${viewer.role} may change only the quotes they created`;
}
