import { z } from 'zod';
import { errors, inputValidator, serviceTypeResource, type ServiceType, type Tax } from '../../shared/index.js';
import { listServiceTypes, serviceTypes } from '../storage/services.js';
import { listTaxes, taxes, taxesByIds } from '../storage/taxes.js';
import { OFFICE_ROLES, requireRole, type OperationContext } from './context.js';
import { newId } from './ids.js';
import { parseInput } from './input.js';

/** The organization's catalog: service types (TypeEntity) and taxes. */

const CreateServiceTypeInput = inputValidator(serviceTypeResource, { required: ['display'] });
const UpdateServiceTypeInput = inputValidator(serviceTypeResource);
const CreateTaxInput = z.strictObject({
  name: z.string().trim().min(1, 'must not be empty').max(200),
  rate: z.number().finite().min(0, 'must be a percentage between 0 and 100').max(100, 'must be a percentage between 0 and 100'),
  isActive: z.boolean().nullish(),
});

export function serviceTypesOf(ctx: OperationContext): Promise<ServiceType[]> {
  return listServiceTypes(ctx.db, ctx.viewer.orgId);
}

export async function createServiceType(ctx: OperationContext, raw: unknown): Promise<ServiceType> {
  requireRole(ctx.viewer, OFFICE_ROLES, 'create service types');
  const input = parseInput(CreateServiceTypeInput, raw);
  return serviceTypes.insert(ctx.db, ctx.viewer.orgId, { desc: null, ...input, id: newId() });
}

export async function updateServiceType(ctx: OperationContext, id: string, raw: unknown): Promise<ServiceType> {
  requireRole(ctx.viewer, OFFICE_ROLES, 'change service types');
  const input = parseInput(UpdateServiceTypeInput, raw);
  const updated = await serviceTypes.update(ctx.db, ctx.viewer.orgId, id, input);
  if (!updated) throw errors.notFound('Service type', id);
  return updated;
}

export function taxesOf(ctx: OperationContext): Promise<Tax[]> {
  return listTaxes(ctx.db, ctx.viewer.orgId);
}

export async function createTax(ctx: OperationContext, raw: unknown): Promise<Tax> {
  requireRole(ctx.viewer, OFFICE_ROLES, 'create taxes');
  const input = parseInput(CreateTaxInput, raw);
  return taxes.insert(ctx.db, ctx.viewer.orgId, { ...input, isActive: input.isActive ?? true, id: newId() });
}

export const taxRelations = {
  byIds: (ctx: OperationContext, ids: readonly string[]): Promise<Tax[]> => taxesByIds(ctx.db, ctx.viewer.orgId, ids),
};
