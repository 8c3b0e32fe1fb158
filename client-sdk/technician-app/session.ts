import {
  closeSession as close,
  openSession as open,
  signInWithCode as withCode,
  storedToken as stored,
  whenSignedOut as signedOut,
  type Session,
  type SessionKind,
  type SignedOut,
} from '../app-kit/session.js';

/**
 * The technician app's sign-in (app-kit/session.ts): TECHNICIAN tokens only, got by trading the
 * office's one-time code (README.md beside this file). The office's QR code opens
 * `/tech/#code=<code>`: the code leaves the address at once and is traded for a token of this
 * phone's own, kept in this browser's storage and never shown. The code can also be typed.
 */
const TECH: SessionKind = {
  app: 'tech',
  roles: ['TECHNICIAN'],
  wrongRole: 'This sign-in is not a technician’s. Ask the office for your phone’s code (Settings, Phones).',
};

export type { Session, SignedOut } from '../app-kit/session.js';
export const openSession = (token: string) => open(TECH, token);
export const signInWithCode = (code: string) => withCode(TECH, code, deviceName());
export const closeSession = (session: Session) => close(TECH, session);
export const whenSignedOut = (session: Session) => signedOut(TECH, session);
export const storedToken = () => stored(TECH);

/** A code handed over in the address (`#code=...`), taken out of it at once; null when there is none. */
export function codeFromAddress(): string | null {
  const handed = /(?:^#|&)code=([^&]+)/.exec(location.hash)?.[1];
  if (!handed) return null;
  history.replaceState(null, '', `${location.pathname}${location.search}#/today`);
  return decodeURIComponent(handed);
}

/** What the phone is, for its token's name in the office's list ("Sam Carter's phone (Android, Chrome)"). */
function deviceName(): string {
  const agent = navigator.userAgent;
  const system = /Android/.test(agent) ? 'Android' : /iPhone|iPad|iPod/.test(agent) ? 'iPhone' : /Mac OS X/.test(agent) ? 'Mac' : /Windows/.test(agent) ? 'Windows' : /Linux/.test(agent) ? 'Linux' : 'Unknown system';
  const browser = /EdgA?\//.test(agent) ? 'Edge' : /CriOS|Chrome\//.test(agent) ? 'Chrome' : /FxiOS|Firefox\//.test(agent) ? 'Firefox' : /Safari\//.test(agent) ? 'Safari' : 'a browser';
  return `${system}, ${browser}`;
}

/** What the sign-in screen says after the server signed this phone out. */
export function signedOutMessage({ reason, kept }: SignedOut): string {
  const why =
    reason === 'revoked'
      ? 'The office signed this phone out.'
      : reason === 'expired'
        ? 'This phone was signed out: it had not been used for a long time.'
        : 'The server no longer knows this phone’s sign-in.';
  const waiting = [kept.changes ? `${kept.changes} change${kept.changes === 1 ? '' : 's'}` : '', kept.photos ? `${kept.photos} photo${kept.photos === 1 ? '' : 's'}` : ''].filter(Boolean).join(' and ');
  const keptWork = waiting ? ` Work not yet sent (${waiting}) stays on this phone and goes to the office when you sign in again.` : '';
  return `${why} The customers and routes it held have been deleted from it.${keptWork} Ask the office for a new code.`;
}
