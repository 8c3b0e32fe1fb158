import { createPhoneSignInCode } from '../../../operations/sign-in-codes.js';
import type { GraphQLContext, Resolvers } from '../context.js';
import type { MutationcreatePhoneSignInCodeArgs } from '../generated/schema-types.js';

/** Signing a technician's phone in by a one-time code (operations/sign-in-codes.ts). Not in the spec. */
export const typeDefs = /* GraphQL */ `
  type Mutation {
    "A code that signs a phone in as the technician, once, within minutes (ADMIN, OFFICE). The phone trades it at POST /phone-sign-in for a token of its own. Not in the spec."
    createPhoneSignInCode(technicianId: ID!): PhoneSignInCode!
  }

  type PhoneSignInCode {
    "Ten letters in two groups (XXXXX-XXXXX); typed, case, spaces and dashes do not matter. Shown only here: the server keeps its hash (a replay with the same Idempotency-Key answers null here and in link)."
    code: String!
    "When the code stops working, redeemed or not (PHONE_SIGN_IN_CODE_MINUTES after it was made)."
    expiresAt: DateTime!
    "The technician app's address with the code in its fragment (/tech/#code=...): what the office's QR code holds."
    link: String!
  }
`;

export const resolvers: Resolvers = {
  Mutation: {
    createPhoneSignInCode: async (_: unknown, { technicianId }: MutationcreatePhoneSignInCodeArgs, ctx: GraphQLContext) => {
      const made = await createPhoneSignInCode(ctx, technicianId, ctx.auth);
      const link = ctx.phoneSignInLink(made.code);
      // Shown once: the answer kept for an Idempotency-Key replay has null where the code was.
      ctx.concealInReplays?.(made.code);
      ctx.concealInReplays?.(link);
      return { ...made, link };
    },
  },
};
