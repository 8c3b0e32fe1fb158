import { z } from 'zod';
import {
  CHEMICALS,
  ChemicalReadingShape,
  chemistrySettingsOf,
  errors,
  f,
  fieldValidatorOf,
  shapeValidatorOf,
  strengthIssue,
  volumeGallons,
  WATER_BODIES,
  waterBalance,
  type WaterBalance,
  type WaterChemistrySettings,
} from '../../shared/index.js';
import { organizations } from '../storage/organizations.js';
import type { OperationContext } from './context.js';
import { parseInput } from './input.js';

/**
 * Water balance and dose suggestions on request (GraphQL `waterBalance`): the shared engine, fed
 * with the organization's settings. Readings are checked by the same shared definition as a
 * visit's, so a pH of 15 is refused here with the words a visit gets.
 */
const reading = ChemicalReadingShape.fields;

const WaterBalanceInput = z
  .strictObject({
    readings: shapeValidatorOf(ChemicalReadingShape),
    volumeGallons: fieldValidatorOf(volumeGallons()),
    borates: fieldValidatorOf(f.float().nullable().min(0).max(1000)),
    bodyOfWater: z.enum(WATER_BODIES).nullish(),
    // A target is a reading the water should have: the readings' own bounds.
    targets: z
      .strictObject({
        ph: fieldValidatorOf(reading.ph),
        freeChlorine: fieldValidatorOf(reading.freeChlorine),
        totalAlkalinity: fieldValidatorOf(reading.totalAlkalinity),
        calciumHardness: fieldValidatorOf(reading.calciumHardness),
        cyanuricAcid: fieldValidatorOf(reading.cyanuricAcid),
        salt: fieldValidatorOf(reading.salt),
      })
      .nullish(),
    products: z
      .array(z.strictObject({ chemical: z.enum(CHEMICALS).exclude(['DRAIN']), strengthPercent: z.number().finite().nullish() }))
      .max(20)
      .nullish(),
  })
  .superRefine((input, check) => {
    input.products?.forEach((p, i) => {
      const message = strengthIssue(p.chemical, p.strengthPercent);
      if (message) check.addIssue({ code: 'custom', path: ['products', i, 'strengthPercent'], message });
    });
  });

/** The organization's water chemistry settings, or the defaults. */
export async function chemistrySettings(ctx: OperationContext): Promise<WaterChemistrySettings> {
  const org = await organizations.findById(ctx.db, ctx.viewer.orgId, ctx.viewer.orgId);
  if (!org) throw errors.notFound('Organization', ctx.viewer.orgId);
  return chemistrySettingsOf(org.settings);
}

export async function balanceOf(ctx: OperationContext, raw: unknown): Promise<WaterBalance> {
  const input = parseInput(WaterBalanceInput, raw);
  return waterBalance({
    readings: input.readings,
    volumeGallons: input.volumeGallons,
    borates: input.borates,
    body: input.bodyOfWater ?? 'POOL',
    settings: await chemistrySettings(ctx),
    targets: input.targets,
    products: input.products,
  });
}
