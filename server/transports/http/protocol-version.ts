import type { RequestHandler } from 'express';
import { errors, PROTOCOL_UPGRADE_TOKEN, PROTOCOL_VERSION_HEADER, protocolVersionOf, servesProtocolVersion, SYNC_PROTOCOL_VERSION } from '../../../shared/index.js';
import { sendGraphQLError, sendRestError } from './errors.js';

/**
 * The sync protocol's version at the edge (shared/sync/protocol-version.ts): a sync request (pull,
 * push, stream) without a `Sync-Protocol-Version` header is version 0; any other request is checked
 * only when it names one (the apps name it on GraphQL too; third parties, who speak the API of the
 * spec and not the sync protocol, send none and are never refused here). A version outside
 * [floor, SYNC_PROTOCOL_VERSION] is answered 426 with the versions served, before authentication,
 * before the body is read and before anything is written, so a refused push leaves nothing on the
 * server and its changes stay on the device.
 */
export function protocolVersionGate(floor: number): RequestHandler {
  return (req, res, next) => {
    const sync = req.path.startsWith('/sync/');
    const header = req.get(PROTOCOL_VERSION_HEADER);
    if (!sync && header === undefined) return next();
    const send = req.path === '/graphql' ? sendGraphQLError : sendRestError;
    const version = protocolVersionOf(header);
    if (version === null) return send(res, errors.badInput(`The ${PROTOCOL_VERSION_HEADER} header must be a decimal integer such as ${SYNC_PROTOCOL_VERSION}`));
    if (servesProtocolVersion(version, floor)) return next();
    res.set('upgrade', PROTOCOL_UPGRADE_TOKEN);
    send(res, errors.versionNotSupported(refusalMessage(version, floor), { clientVersion: version, minVersion: floor, currentVersion: SYNC_PROTOCOL_VERSION }));
  };
}

function refusalMessage(version: number, floor: number): string {
  const served = floor === SYNC_PROTOCOL_VERSION ? `version ${floor}` : `versions ${floor} to ${SYNC_PROTOCOL_VERSION}`;
  if (version > SYNC_PROTOCOL_VERSION) return `This server speaks sync protocol ${served}, older than this app's version ${version}: use the app this server serves`;
  return `This app speaks sync protocol version ${version}; this server serves ${served}. Update the app to sync: its changes stay on the device until then`;
}
