import { scopeNameOf } from '../../../shared/index.js';
import { installedWindows } from '../../storage/scopes.js';
import type { OperationContext } from '../context.js';

/**
 * Days of past work the viewer's devices hold (their scope's window, shared/sync/scopes.ts): an app
 * reads older work from the server, since its replica will never have it.
 */
export async function viewerWindowDays(ctx: OperationContext): Promise<number> {
  return (await installedWindows(ctx.db))[scopeNameOf(ctx.viewer.role)];
}
