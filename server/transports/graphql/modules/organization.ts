import {
  createApiToken,
  currentUser,
  listApiTokens,
  listOrganizationUsers,
  revokeApiToken,
} from '../../../operations/auth.js';
import {
  getOrganization,
  updateOrganization,
  updateOrganizationSettings,
} from '../../../operations/organization.js';
import { viewerWindowDays } from '../../../operations/sync/windows.js';
import { idleExpiryOf } from '../../../operations/auth-policy.js';
import type { TokenWithRole } from '../../../storage/tokens.js';
import type { Organization } from '../../../../shared/index.js';
import type { GraphQLContext, Resolvers } from '../context.js';
import type { MutationcreateApiTokenArgs, MutationrevokeApiTokenArgs, MutationupdateOrganizationArgs, MutationupdateOrganizationSettingsArgs, QueryusersArgs } from '../generated/schema-types.js';

/** The spec's organization operations, plus the viewer and API-token management. */
export const typeDefs = /* GraphQL */ `
  type Query {
    "The organization of the current user."
    organization: Organization!
    "Who the bearer token belongs to."
    viewer: Viewer!
    "Every API token of the organization, revoked ones included (ADMIN only)."
    apiTokens: [ApiToken!]!
    "The organization's users by name, only those with the role when given (ADMIN, OFFICE, API)."
    users(role: Role): [User!]!
  }

  type Mutation {
    updateOrganization(input: UpdateOrganizationInput!): Organization!
    updateOrganizationSettings(input: UpdateOrganizationSettingsInput!): OrganizationSettings!
    "Creates a user with the role and returns its token. The token is shown only here (ADMIN only)."
    createApiToken(input: CreateApiTokenInput!): CreatedApiToken!
    "Revokes a token at once; requests carrying it are answered UNAUTHENTICATED (ADMIN only)."
    revokeApiToken(id: ID!): ApiToken!
  }

  type Viewer {
    user: User!
    role: Role!
    organization: Organization!
    "Days of past work this user's devices hold in their replica (later work always); older work is read here. Not in the spec."
    syncWindowDays: Int!
  }

  "Fields not submitted stay as they were; null clears a nullable field."
  input UpdateOrganizationInput {
    name: String
    email: String
    phone: String
    website: String
    address: AddressInput
    timezone: String
    currency: String
  }

  input UpdateOrganizationSettingsInput {
    invoicePrefix: String
    quotePrefix: String
    defaultTaxId: ID
    autoSendInvoices: Boolean
    invoiceDueDays: Int
    emailFromName: String
    emailReplyTo: String
    "Email / text each completed visit's report to its customer (on by default)."
    sendVisitReports: Boolean
    "Replaces the water chemistry settings whole; null goes back to the defaults. Not in the spec."
    waterChemistry: WaterChemistrySettingsInput
    "Chemicals and parts used on visits: INCLUDED (null), UNIT_PRICE, or COST_PLUS chemicalMarkupPercent."
    chemicalBilling: ChemicalBilling
    chemicalMarkupPercent: Float
    "PER_INVOICE (null) or PER_LINE; each invoice keeps the rounding it was made with."
    taxRounding: TaxRounding
    "MONTHLY_FLAT customers billed in ARREARS (null) or in ADVANCE."
    flatRateTiming: FlatRateTiming
  }

  input CreateApiTokenInput {
    name: String!
    role: Role!
    "A further token for this existing user instead of a new user; the role must be theirs (a technician's phone signs in by createPhoneSignInCode instead). Not in the spec."
    userId: ID
  }

  type ApiToken {
    "When the token stops working unless it is used before: TOKEN_IDLE_DAYS after its last use (TECHNICIAN and OFFICE tokens); null for ADMIN and API tokens, which do not expire, and for revoked ones. Not in the spec."
    idleExpiresAt: DateTime
  }

  type CreatedApiToken {
    "The bearer token. Store it now: only its hash is kept."
    token: String!
    apiToken: ApiToken!
  }
`;


export const resolvers: Resolvers = {
  Query: {
    organization: (_: unknown, __: unknown, ctx: GraphQLContext) => getOrganization(ctx),
    viewer: (_: unknown, __: unknown, ctx: GraphQLContext) => ({ role: ctx.viewer.role }),
    apiTokens: (_: unknown, __: unknown, ctx: GraphQLContext) => listApiTokens(ctx),
    users: (_: unknown, { role }: QueryusersArgs, ctx: GraphQLContext) => listOrganizationUsers(ctx, role),
  },
  Mutation: {
    updateOrganization: (_: unknown, { input }: MutationupdateOrganizationArgs, ctx: GraphQLContext) =>
      updateOrganization(ctx, input),
    updateOrganizationSettings: (_: unknown, { input }: MutationupdateOrganizationSettingsArgs, ctx: GraphQLContext) =>
      updateOrganizationSettings(ctx, input),
    createApiToken: (_: unknown, { input }: MutationcreateApiTokenArgs, ctx: GraphQLContext) => createApiToken(ctx, input),
    revokeApiToken: (_: unknown, { id }: MutationrevokeApiTokenArgs, ctx: GraphQLContext) => revokeApiToken(ctx, id),
  },
  ApiToken: {
    idleExpiresAt: (token: TokenWithRole, _: unknown, ctx: GraphQLContext) => (token.revokedAt ? null : (idleExpiryOf(token, ctx.auth)?.toISOString() ?? null)),
  },
  Organization: {
    logo: (org: Organization, _: unknown, ctx: GraphQLContext) => (org.logoKey ? ctx.fileUrl(org.logoKey) : null),
  },
  Viewer: {
    user: (_: unknown, __: unknown, ctx: GraphQLContext) => currentUser(ctx),
    organization: (_: unknown, __: unknown, ctx: GraphQLContext) => getOrganization(ctx),
    syncWindowDays: (_: unknown, __: unknown, ctx: GraphQLContext) => viewerWindowDays(ctx),
  },
};
