import { BALANCE_BANDS, chemistrySettingsOf, visitBalance, WATER_BODIES, type OrganizationSettings, type Service } from '../../../../shared/index.js';
import { chemicalCost } from '../../../operations/chemical-cost.js';
import { balanceOf } from '../../../operations/chemistry.js';
import type { GraphQLContext, Resolvers } from '../context.js';
import type { QuerychemicalCostArgs, QuerywaterBalanceArgs } from '../generated/schema-types.js';

/**
 * Water chemistry beside the spec's operations: balance and dose suggestions (the shared engine,
 * shared/chemistry/README.md), a visit's own balance at its formula version, and chemical cost per pool.
 */
export const typeDefs = /* GraphQL */ `
  type Query {
    "CSI, LSI and the doses that bring each reading into the organization's target range (or to the targets given)."
    waterBalance(input: WaterBalanceInput!): WaterBalance!
    "Per customer, the chemicals used on visits starting in [from, to) times each item's cost price (ADMIN, OFFICE, API)."
    chemicalCost(from: DateTime!, to: DateTime!, customerId: ID): ChemicalCostReport!
  }

  extend type Service {
    "The visit's balance and suggested doses, from its readings and its customer's pool, computed with the formula version the visit keeps."
    waterBalance: WaterBalance
  }

  "The kind of water whose target ranges apply."
  enum WaterBody {
    ${WATER_BODIES.join('\n    ')}
  }

  "Where the balance stands (Trouble Free Pool's reading of CSI): BALANCED within 0.3 of 0, LOW or HIGH to 0.6, beyond CORROSIVE or SCALING."
  enum BalanceBand {
    ${BALANCE_BANDS.join('\n    ')}
  }

  input WaterBalanceInput {
    readings: ChemicalReadingInput!
    "US gallons, more than 0 and at most 10,000,000. Without it no dose is suggested (the answer's notes say so)."
    volumeGallons: Float
    "Borates, ppm."
    borates: Float
    "Default POOL."
    bodyOfWater: WaterBody
    "A target value per reading: a dose is suggested whenever the reading differs from it."
    targets: WaterTargetValuesInput
    "Products (and strengths) to prefer over the organization's."
    products: [ChemicalStrengthInput!]
  }

  input WaterTargetValuesInput {
    ph: Float
    freeChlorine: Float
    totalAlkalinity: Float
    calciumHardness: Float
    cyanuricAcid: Float
    salt: Float
  }

  input ChemicalStrengthInput {
    chemical: Chemical!
    "Percent; the usual strength when left out."
    strengthPercent: Float
  }

  type WaterBalance {
    "The version of the formulas that computed this (shared/chemistry/README.md, Formula versions)."
    formulaVersion: Int!
    "Calcite Saturation Index as Trouble Free Pool's PoolMath computes it."
    csi: Float
    "Langelier index from the factor table, on carbonate alkalinity."
    lsi: Float
    "The TDS constant the LSI subtracted: 12.1, 12.2 or 12.3."
    lsiTdsConstant: Float
    "Total alkalinity less cyanurate and borate alkalinity, ppm."
    carbonateAlkalinity: Float
    band: BalanceBand
    doses: [Dose!]!
    "What could not be computed or suggested, and what was assumed."
    notes: [String!]!
  }

  type Dose {
    "The ChemicalReading field the dose moves, e.g. ph."
    reading: String!
    chemical: Chemical!
    "The strength the amount assumes; null for a drain."
    strengthPercent: Float
    "This visit's amount, in unit (after the organization's per-visit cap)."
    amount: Float!
    unit: DoseUnit!
    "The reading before, and after this amount."
    from: Float!
    to: Float!
    "Where the reading is brought; to falls short of it when a cap held some back."
    target: Float!
    "What the cap carried to the next visit, in unit."
    carriedOver: Float!
  }

  type ChemicalCostReport {
    from: DateTime!
    to: DateTime!
    "The organization's currency."
    currency: String!
    customers: [CustomerChemicalCost!]!
    total: Float!
  }

  type CustomerChemicalCost {
    customerId: ID!
    customer: Customer
    lines: [ChemicalCostLine!]!
    total: Float!
    "Units used of items without a cost price (counted in no total)."
    unpricedUnits: Int!
  }

  type ChemicalCostLine {
    itemId: ID!
    itemName: String!
    "The chemical the item was dosed as, when it was."
    chemical: Chemical
    "Units used, in the item's unit; corrections included."
    units: Int!
    unit: String
    unitCost: Float
    cost: Float
  }
`;

export const resolvers: Resolvers = {
  Query: {
    waterBalance: (_: unknown, { input }: QuerywaterBalanceArgs, ctx: GraphQLContext) => balanceOf(ctx, input),
    chemicalCost: (_: unknown, args: QuerychemicalCostArgs, ctx: GraphQLContext) => chemicalCost(ctx, args),
  },
  Service: {
    waterBalance: async (s: Service, _: unknown, ctx: GraphQLContext) => {
      const [customer, settings] = await Promise.all([s.customerId ? ctx.loaders.customer.load(s.customerId) : null, ctx.loaders.chemistrySettings.load(ctx.viewer.orgId)]);
      return visitBalance(s, customer, settings);
    },
  },
  CustomerChemicalCost: {
    customer: (c: { customerId: string }, _: unknown, ctx: GraphQLContext) => ctx.loaders.customer.load(c.customerId),
  },
  OrganizationSettings: {
    // Never null: an organization that saved none has the defaults.
    waterChemistry: (s: OrganizationSettings) => chemistrySettingsOf(s),
  },
};
