import { closeSession as close, openSession as open, storedToken as stored, type Session, type SessionKind } from '../app-kit/session.js';

/**
 * The technician app's sign-in (app-kit/session.ts): TECHNICIAN tokens only. The office hands a
 * phone its token as a QR code of `/tech/#token=<token>`: opening it signs the phone in, and the
 * token leaves the address at once (it stays in this browser's storage, like a pasted one).
 */
const TECH: SessionKind = {
  app: 'tech',
  roles: ['TECHNICIAN'],
  wrongRole: 'This token is not a technician’s. Ask the office for your phone’s QR code (Settings, Phones).',
};

export type { Session } from '../app-kit/session.js';
export const openSession = (token: string) => open(TECH, token);
export const closeSession = (session: Session) => close(TECH, session);

/** A token handed over in the address (`#token=...`), taken out of it; else the one kept here. */
export function tokenToUse(): string | null {
  const handed = /(?:^#|&)token=([^&]+)/.exec(location.hash)?.[1];
  if (handed) {
    history.replaceState(null, '', `${location.pathname}${location.search}#/today`);
    return decodeURIComponent(handed);
  }
  return stored(TECH);
}
