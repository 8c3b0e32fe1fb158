import { z } from 'zod';
import { csvColumnsOf, inputValidator, serviceResource } from '../../../../shared/index.js';
import type { Queryable } from '../../../storage/db.js';
import { serviceIdsMatching, servicePage, services } from '../../../storage/services.js';
import { ServicesSelectorInput } from '../../services.js';
import { BY_ID, exportKind, exportWindow, ids, lastKey, patchKind, resolveSelection, type KindDefinition } from '../kind.js';

/** Visits: change many (billing, assignment, ...), export with their readings. */

const ServicePatch = inputValidator(serviceResource, { omit: ['photos'] });
const ServiceSelection = z.strictObject({ ids: ids.nullish(), selector: ServicesSelectorInput }).refine((s) => s.ids || s.selector, 'give ids or a selector');

const serviceSelection = (q: Queryable, orgId: string, s: z.output<typeof ServiceSelection>) =>
  resolveSelection(q, orgId, { ids: s.ids, match: () => serviceIdsMatching(q, orgId, s.selector ?? {}) }, services, 'visits');

const ExportRequest = z.strictObject({ selection: z.strictObject({ selector: ServicesSelectorInput }).nullish() });

const servicesExport = exportKind(
  'SERVICES_EXPORT',
  ExportRequest,
  async (q, orgId, payload, after) => {
    const selector = payload.selection?.selector ?? {};
    const page = await servicePage(q, orgId, selector, BY_ID('s'), exportWindow(after));
    return { rows: page.rows.map((r) => r.record), last: lastKey(page) };
  },
  csvColumnsOf(serviceResource),
  'services',
);

export const SERVICE_KINDS: readonly KindDefinition[] = [
  servicesExport,
  patchKind('SERVICES_UPDATE', ServiceSelection, ServicePatch, serviceSelection, services),
];
