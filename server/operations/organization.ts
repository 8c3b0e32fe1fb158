import { z } from 'zod';
import { CHEMICAL_BILLING, errors, FLAT_RATE_TIMINGS, idValidator, TAX_ROUNDINGS, settingsIssues, shapeValidatorOf, WaterChemistrySettingsShape, type Organization, type OrganizationSettings, type WaterChemistrySettings } from '../../shared/index.js';
import type { Queryable } from '../storage/db.js';
import { inventoryItems } from '../storage/inventory.js';
import type { Database } from '../storage/db.js';
import {
  insertOrganization,
  lockProvisioning,
  organizations,
  takenSlugs,
} from '../storage/organizations.js';
import { taxExists } from '../storage/taxes.js';
import { issueToken, type IssuedToken } from './auth.js';
import { OFFICE_ROLES, requireRole, type OperationContext } from './context.js';
import { newId } from './ids.js';
import { parseInput } from './input.js';

/** The organization of the caller, its settings, and provisioning of new organizations. */

const name = z.string().trim().min(1, 'must not be empty').max(200);
const optionalText = (max: number) => z.string().trim().max(max).nullable().optional();
const email = z.email().max(320).nullable().optional();
const timezone = z.string().refine(isTimeZone, 'must be an IANA time zone such as America/Phoenix');
const currency = z.string().regex(/^[A-Z]{3}$/, 'must be a three-letter ISO 4217 code such as USD');

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

const AddressInput = z
  .strictObject({
    street: optionalText(500),
    city: optionalText(200),
    state: optionalText(100),
    zipCode: optionalText(20),
  })
  .transform((a) => ({
    street: a.street ?? null,
    city: a.city ?? null,
    state: a.state ?? null,
    zipCode: a.zipCode ?? null,
  }));

const UpdateOrganizationInput = z.strictObject({
  name: name.optional(),
  email,
  phone: optionalText(50),
  website: z.url({ protocol: /^https?$/ }).max(500).nullable().optional(),
  address: AddressInput.nullable().optional(),
  timezone: timezone.optional(),
  currency: currency.optional(),
});

/**
 * Water chemistry settings replace the saved ones whole (null: back to the defaults). Checked by
 * the shared rules (`settingsIssues`: ranges in order, one product and cap per chemical, strengths
 * within their formulas' span); nullable fields left out are stored as null.
 */
const WaterChemistryInput = shapeValidatorOf(WaterChemistrySettingsShape)
  .transform(withNullsLeftOut)
  .superRefine((settings, check) => {
    for (const issue of settingsIssues(settings)) check.addIssue({ code: 'custom', path: [...issue.path], message: issue.message });
  });

function withNullsLeftOut(s: WaterChemistrySettings): WaterChemistrySettings {
  const targets = (t: WaterChemistrySettings['pool']) => ({ ...t, salt: t.salt ?? null });
  return {
    pool: targets(s.pool),
    spa: targets(s.spa),
    saltPool: targets(s.saltPool),
    products: s.products.map((p) => ({ chemical: p.chemical, itemId: p.itemId ?? null, strengthPercent: p.strengthPercent ?? null })),
    caps: s.caps,
    fillWater: s.fillWater ? { calciumHardness: s.fillWater.calciumHardness ?? null, cyanuricAcid: s.fillWater.cyanuricAcid ?? null, salt: s.fillWater.salt ?? null } : null,
  };
}

const UpdateSettingsInput = z.strictObject({
  invoicePrefix: z.string().max(20).optional(),
  quotePrefix: z.string().max(20).optional(),
  defaultTaxId: idValidator().nullable().optional(),
  autoSendInvoices: z.boolean().optional(),
  invoiceDueDays: z.number().int().min(0).max(365).optional(),
  emailFromName: optionalText(200),
  emailReplyTo: email,
  sendVisitReports: z.boolean().optional(),
  waterChemistry: WaterChemistryInput.nullable().optional(),
  chemicalBilling: z.enum(CHEMICAL_BILLING).nullable().optional(),
  chemicalMarkupPercent: z.number().finite().min(0).max(1000).nullable().optional(),
  taxRounding: z.enum(TAX_ROUNDINGS).nullable().optional(),
  flatRateTiming: z.enum(FLAT_RATE_TIMINGS).nullable().optional(),
});

const ProvisionInput = z.strictObject({
  name,
  email,
  timezone: timezone.optional(),
  currency: currency.optional(),
});

export async function getOrganization(ctx: OperationContext): Promise<Organization> {
  const org = await organizations.findById(ctx.db, ctx.viewer.orgId, ctx.viewer.orgId);
  if (!org) throw errors.notFound('Organization', ctx.viewer.orgId);
  return org;
}

/** Fields not submitted stay as they were; an explicit null clears a nullable field. */
export async function updateOrganization(ctx: OperationContext, rawInput: unknown): Promise<Organization> {
  requireRole(ctx.viewer, OFFICE_ROLES, 'change the organization');
  const input = parseInput(UpdateOrganizationInput, rawInput);
  const orgId = ctx.viewer.orgId;
  const updated = await organizations.update(ctx.db, orgId, orgId, input);
  if (!updated) throw errors.notFound('Organization', orgId);
  return updated;
}

export async function updateOrganizationSettings(
  ctx: OperationContext,
  rawInput: unknown,
): Promise<OrganizationSettings> {
  requireRole(ctx.viewer, OFFICE_ROLES, 'change organization settings');
  const input = parseInput(UpdateSettingsInput, rawInput);
  const orgId = ctx.viewer.orgId;
  return ctx.db.transaction(async (tx) => {
    if (input.defaultTaxId && !(await taxExists(tx, orgId, input.defaultTaxId))) {
      throw errors.badInput(`defaultTaxId: tax ${input.defaultTaxId} was not found`, { fields: ['defaultTaxId'] });
    }
    if (input.waterChemistry) await requireProductItems(tx, orgId, input.waterChemistry);
    const current = await organizations.findById(tx, orgId, orgId);
    if (!current) throw errors.notFound('Organization', orgId);
    const settings = { ...current.settings, ...definedOnly(input) };
    const updated = await organizations.update(tx, orgId, orgId, { settings });
    return updated!.settings;
  });
}

/** Every product names an item of the organization's catalog (or none). */
async function requireProductItems(tx: Queryable, orgId: string, settings: WaterChemistrySettings): Promise<void> {
  const named = settings.products.flatMap((p) => (p.itemId ? [p.itemId] : []));
  const found = await inventoryItems.existingIds(tx, orgId, named);
  const index = settings.products.findIndex((p) => p.itemId && !found.has(p.itemId));
  if (index < 0) return;
  const field = `waterChemistry.products.${index}.itemId`;
  throw errors.badInput(`${field}: inventory item ${settings.products[index]!.itemId} was not found`, { fields: [field] });
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export interface ProvisionedOrganization extends IssuedToken {
  organization: Organization;
}

/**
 * Creates an organization with default settings, its first ADMIN user and that user's token.
 * Used by POST /admin/organizations, `npm run admin -- create-org` and the demo seed.
 */
export async function provisionOrganization(db: Database, rawInput: unknown): Promise<ProvisionedOrganization> {
  const input = parseInput(ProvisionInput, rawInput);
  return db.transaction(async (tx) => {
    await lockProvisioning(tx);
    const base = slugify(input.name);
    const slug = firstFreeSlug(base, await takenSlugs(tx, base));
    const id = newId();
    const organization = await insertOrganization(tx, {
      id,
      name: input.name,
      slug,
      email: input.email ?? null,
      phone: null,
      website: null,
      logo: null,
      logoKey: null,
      address: null,
      timezone: input.timezone ?? 'UTC',
      currency: input.currency ?? 'USD',
      settings: defaultSettings(input.name),
      subscription: null,
      accountingConnected: false,
      paymentProcessorConnected: false,
    });
    const issued = await issueToken(tx, id, { name: 'Administrator', role: 'ADMIN' });
    return { organization, ...issued };
  });
}

function defaultSettings(orgName: string): OrganizationSettings {
  return {
    invoicePrefix: 'INV-',
    quotePrefix: 'Q-',
    defaultTaxId: null,
    autoSendInvoices: false,
    invoiceDueDays: 30,
    emailFromName: orgName,
    emailReplyTo: null,
    sendVisitReports: true,
    chemicalBilling: null,
    chemicalMarkupPercent: null,
    taxRounding: null,
    flatRateTiming: null,
    waterChemistry: null,
  };
}

/** "Blue Lagoon Pools, LLC" -> "blue-lagoon-pools-llc". */
export function slugify(text: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return slug || 'organization';
}

function firstFreeSlug(base: string, taken: Set<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}
