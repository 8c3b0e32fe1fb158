import { defaultFieldResolver, type GraphQLSchema } from 'graphql';
import type { GraphQLContext } from './context.js';

/**
 * When a whole request runs in one transaction (sent with an Idempotency-Key), each mutation field
 * runs in its own savepoint: a field that fails undoes its own writes and leaves the transaction
 * usable for the fields after it and for storing the answer, as separate requests would.
 * Otherwise fields run as they always do.
 */
export function atomicMutationFields(schema: GraphQLSchema): GraphQLSchema {
  const fields = schema.getMutationType()?.getFields() ?? {};
  for (const field of Object.values(fields)) {
    const resolve = field.resolve ?? defaultFieldResolver;
    field.resolve = (source, args, ctx: GraphQLContext, info) =>
      ctx.inRequestTransaction ? ctx.db.transaction(async () => resolve(source, args, ctx, info)) : resolve(source, args, ctx, info);
  }
  return schema;
}
