import { filter, firstValueFrom } from 'rxjs';
import type { Role } from '../../shared/index.js';
import { createPoolClient, type PoolClient, type WipeResult } from '../index.js';
import { ApiError, createApi, type Api } from './api.js';
import { ViewerDocument, type ViewerQuery } from './graphql/operations.generated.js';

/**
 * Signing in and out, for both apps: a token kept in this browser (localStorage), checked against
 * the server, and the SDK client (an IndexedDB replica named per app, organization and user) opened
 * with it. Who the token belongs to is remembered too, so the app opens offline on its replica. A
 * phone gets its token by trading the office's one-time code (`signInWithCode`). Signed out, by the
 * person or by the server (a token revoked or expired, `whenSignedOut`), the replica keeps nothing
 * of the organization but the work not yet synced (client.wipeSyncedData), which goes up when the
 * same person signs in again on this browser (the same replica).
 */
export type Viewer = ViewerQuery['viewer'];

export interface Session {
  token: string;
  viewer: Viewer;
  api: Api;
  client: PoolClient;
}

export interface SessionKind {
  /** Names the app's keys in localStorage and its replica (`office`, `tech`). */
  app: string;
  /** The roles whose tokens this app takes. */
  roles: readonly Role[];
  /** What to say to a token of another role. */
  wrongRole: string;
  /**
   * Told of a token new to this browser once the server has vouched for it, before its replica
   * opens (an empty replica: what the first screen needs may be asked of the server meanwhile).
   * The replica's sync starts once that answer is in (at most FIRST_SCREEN_WAIT_MS later).
   */
  signingInAnew?: (api: Api, viewer: Viewer) => Promise<unknown>;
}

/**
 * How long a new replica's sync waits for the first screen's answer from the server. A first sync
 * asks the server for the same day first (its `today` band), and the two answers compete for the
 * server: at 200 technicians the board's answer came at 2.1-2.5 s after sign-in beside the band, and
 * at 1.7-2.0 s once the sync waited (the server alone answers the day in 0.6 s warm, 1.1 s cold);
 * the replica, which needs several seconds to write its band, loses about a second.
 */
const FIRST_SCREEN_WAIT_MS = 2_000;

const tokenKey = (kind: SessionKind) => `pool-${kind.app}-token`;
const viewerKey = (kind: SessionKind) => `pool-${kind.app}-viewer`;

export function storedToken(kind: SessionKind): string | null {
  return localStorage.getItem(tokenKey(kind));
}

/**
 * Opens the replica for the token. A token this browser has signed in with before opens at once
 * with the viewer it remembers (a phone without signal, or on a dead network, must not wait for a
 * deadline to show its route), and the server is asked in the background; a revoked token then
 * shows as the SDK's `signed-out` state. A new token is checked with the server first.
 */
export async function openSession(kind: SessionKind, token: string): Promise<Session> {
  const api = createApi(location.origin, token);
  const remembered = rememberedViewer(kind, token);
  const viewer = remembered ?? (await whoIs(kind, api));
  if (!kind.roles.includes(viewer.role)) throw new ApiError(kind.wrongRole, 'FORBIDDEN');
  const firstScreen = remembered ? undefined : kind.signingInAnew?.(api, viewer);
  remember(kind, token, viewer);
  if (remembered) void whoIs(kind, api).then((fresh) => remember(kind, token, fresh), () => {});
  const client = await createPoolClient({ baseUrl: location.origin, token, name: `${kind.app}-${viewer.organization.id}-${viewer.user.id}` });
  if (firstScreen) {
    const waited = new Promise((resolve) => setTimeout(resolve, FIRST_SCREEN_WAIT_MS));
    void Promise.race([firstScreen.catch(() => {}), waited]).then(() => client.sync.start());
  } else client.sync.start();
  return { token, viewer, api, client };
}

/**
 * Trades the office's one-time sign-in code for a token of this device's own (POST /phone-sign-in)
 * and opens the session with it. The token is kept in this browser only: it is never shown, never
 * in an address. A wrong, used or expired code is refused in the server's words.
 */
export async function signInWithCode(kind: SessionKind, code: string, deviceName: string): Promise<Session> {
  const { token } = await createApi(location.origin, null).rest<{ token: string }>('POST', '/phone-sign-in', { code, deviceName });
  return openSession(kind, token);
}

/** Why the server signed this device out (`revoked`, `expired`, `unknown`) and the unsynced work kept on it. */
export interface SignedOut {
  reason: string;
  kept: { changes: number; photos: number };
}

/**
 * Resolves once the server refuses the session's token (the SDK's `signed-out`, at the device's
 * next contact), after the replica has deleted what it held of the organization but the work not
 * yet synced, and the session is closed and forgotten: the app then shows its sign-in screen and
 * says why. Null when the session was closed first (the person signed out).
 */
export async function whenSignedOut(kind: SessionKind, session: Session): Promise<SignedOut | null> {
  const status = await firstValueFrom(session.client.sync.status$.pipe(filter((s) => s.state === 'signed-out')), { defaultValue: null });
  if (!status) return null;
  const wiped = await end(kind, session);
  return { reason: status.signedOutReason ?? 'unknown', kept: { changes: wiped.pendingChanges, photos: wiped.photos } };
}

const endings = new WeakMap<Session, Promise<WipeResult>>();

/** Forgets the token, wipes the replica but the unsynced work, and closes it: once, whoever asks first (the server or the person). */
function end(kind: SessionKind, session: Session): Promise<WipeResult> {
  let ending = endings.get(session);
  if (!ending) {
    forget(kind);
    ending = session.client.wipeSyncedData().then(async (wiped) => {
      await session.client.close();
      return wiped;
    });
    endings.set(session, ending);
  }
  return ending;
}

async function whoIs(kind: SessionKind, api: Api): Promise<Viewer> {
  try {
    return (await api.graphql(ViewerDocument)).viewer;
  } catch (error) {
    if (error instanceof ApiError && error.code === 'UNAUTHENTICATED') {
      forget(kind);
      throw new ApiError('This token is not valid: it is mistyped or has been revoked.', 'UNAUTHENTICATED');
    }
    throw error;
  }
}

function rememberedViewer(kind: SessionKind, token: string): Viewer | null {
  const remembered = JSON.parse(localStorage.getItem(viewerKey(kind)) ?? 'null') as { token: string; viewer: Viewer } | null;
  return remembered?.token === token ? remembered.viewer : null;
}

function remember(kind: SessionKind, token: string, viewer: Viewer): void {
  localStorage.setItem(tokenKey(kind), token);
  localStorage.setItem(viewerKey(kind), JSON.stringify({ token, viewer }));
}

/** The person signs out: the browser forgets the token and the replica keeps only the work not yet synced. */
export async function closeSession(kind: SessionKind, session: Session): Promise<void> {
  await end(kind, session);
}

function forget(kind: SessionKind): void {
  localStorage.removeItem(tokenKey(kind));
  localStorage.removeItem(viewerKey(kind));
}
