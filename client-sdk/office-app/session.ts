import { createPoolClient, type PoolClient } from '../index.js';
import { ApiError, createApi, type Api } from './api.js';
import { OfficeViewerDocument, type OfficeViewerQuery } from './graphql/operations.generated.js';

/**
 * Signing in: a token pasted once and kept in this browser (localStorage), checked against the
 * server, and the SDK client (an IndexedDB replica named per organization and user) opened with
 * it. Who the token belongs to is remembered too, so the app opens offline on the replica.
 */
const TOKEN_KEY = 'pool-office-token';
const VIEWER_KEY = 'pool-office-viewer';

export type Viewer = OfficeViewerQuery['viewer'];

export interface Session {
  token: string;
  viewer: Viewer;
  api: Api;
  client: PoolClient;
}

export function storedToken(): string | null {
  return localStorage.getItem(TOKEN_KEY);
}

/** Checks the token with the server (or, offline, trusts the viewer it had) and opens the replica. */
export async function openSession(token: string): Promise<Session> {
  const api = createApi(location.origin, token);
  const viewer = await whoIs(api, token);
  if (viewer.role === 'TECHNICIAN') throw new ApiError('This is a technician token; the office app needs an ADMIN, OFFICE or API token.', 'FORBIDDEN');
  localStorage.setItem(TOKEN_KEY, token);
  localStorage.setItem(VIEWER_KEY, JSON.stringify({ token, viewer }));
  const client = await createPoolClient({ baseUrl: location.origin, token, name: `office-${viewer.organization.id}-${viewer.user.id}` });
  client.sync.start();
  return { token, viewer, api, client };
}

async function whoIs(api: Api, token: string): Promise<Viewer> {
  try {
    return (await api.graphql(OfficeViewerDocument)).viewer;
  } catch (error) {
    if (error instanceof ApiError && error.code === 'UNAUTHENTICATED') {
      forget();
      throw new ApiError('This token is not valid: it is mistyped or has been revoked.', 'UNAUTHENTICATED');
    }
    const remembered = JSON.parse(localStorage.getItem(VIEWER_KEY) ?? 'null') as { token: string; viewer: Viewer } | null;
    if (error instanceof ApiError && error.code === 'OFFLINE' && remembered?.token === token) return remembered.viewer;
    throw error;
  }
}

export async function closeSession(session: Session): Promise<void> {
  forget();
  await session.client.close();
}

function forget(): void {
  localStorage.removeItem(TOKEN_KEY);
  localStorage.removeItem(VIEWER_KEY);
}
