import { OFFICE_ROLES } from '../../shared/index.js';
import { askTodayEarly } from './board/board-data.js';
import { closeSession as close, openSession as open, storedToken as stored, whenSignedOut as signedOut, type Session, type SessionKind } from '../app-kit/session.js';

/** The office app's sign-in (app-kit/session.ts): ADMIN, OFFICE and API tokens. */
const OFFICE: SessionKind = {
  app: 'office',
  roles: OFFICE_ROLES,
  wrongRole: 'This is a technician token; the office app needs an ADMIN, OFFICE or API token.',
  // The board opens on today: asked of the server while the new replica opens and starts its sync.
  signingInAnew: (api) => askTodayEarly(api),
};

export type { Session, Viewer } from '../app-kit/session.js';
export const storedToken = () => stored(OFFICE);
export const openSession = (token: string) => open(OFFICE, token);
export const closeSession = (session: Session) => close(OFFICE, session);
export const whenSignedOut = (session: Session) => signedOut(OFFICE, session);
