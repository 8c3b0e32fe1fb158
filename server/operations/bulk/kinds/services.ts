import { z } from 'zod';
import { csvColumnsOf, errors, inputValidator, serviceResource, type Service } from '../../../../shared/index.js';
import { invoicedVisitIds } from '../../../storage/billable.js';
import { assertBillingStatusWritable, whyBillingStatusRefused } from '../../billing/visit-billing-status.js';
import type { Queryable } from '../../../storage/db.js';
import { serviceIdsMatching, servicePage, services } from '../../../storage/services.js';
import { ServicesSelectorInput } from '../../services.js';
import { BY_ID, defineKind, exportKind, exportWindow, ids, idsOf, lastKey, resolveSelection, type IdsPayload, type ItemOutcome, type KindDefinition } from '../kind.js';

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

const UpdateRequest = z.strictObject({ selection: ServiceSelection, patch: ServicePatch });

/**
 * Changes the same fields of many visits. billingStatus is billing's on billed visits: INVOICED
 * is refused outright, and a visit an invoice holds is left as it is and listed as failed.
 */
const servicesUpdate = defineKind<IdsPayload & { patch: Partial<Service> }, string>({
  kind: 'SERVICES_UPDATE',
  async prepare(q, orgId, raw) {
    const { selection, patch } = UpdateRequest.parse(raw);
    if (!Object.keys(patch).length) throw errors.badInput('patch: change at least one field');
    assertBillingStatusWritable(null, patch.billingStatus);
    const found = await serviceSelection(q, orgId, selection);
    return { payload: { ids: found, patch }, total: found.length };
  },
  run: {
    type: 'chunked',
    items: idsOf,
    async apply(env, payload, items) {
      const wanted = items.map((i) => i.item);
      const billed = payload.patch.billingStatus === undefined ? new Set<string>() : await invoicedVisitIds(env.tx, env.orgId, wanted);
      const changed = new Set(await services.patchMany(env.tx, env.orgId, wanted.filter((id) => !billed.has(id)), payload.patch));
      return items.map(({ item }): ItemOutcome => {
        if (billed.has(item)) return { error: { code: 'BAD_USER_INPUT', message: whyBillingStatusRefused('INVOICED', payload.patch.billingStatus)! } };
        return changed.has(item) ? { ok: true } : { error: { code: 'NOT_FOUND', message: 'deleted since the operation started' } };
      });
    },
  },
});

export const SERVICE_KINDS: readonly KindDefinition[] = [servicesExport, servicesUpdate];
