import type { Resolvers } from '../context.js';

/**
 * The SDL of a cursor connection of `node` (every list is one): `<node>Connection` with its edges
 * and page info (and `totalCount` when the list counts), and `<node>Edge`. `name` renames the
 * connection; `edge: false` reuses an edge type declared by another connection of the same node.
 */
export function connectionSDL(node: string, options: { name?: string; totalCount?: boolean; edge?: boolean } = {}): string {
  const connection = `
  type ${options.name ?? `${node}Connection`} {
    edges: [${node}Edge!]!
    pageInfo: PageInfo!${options.totalCount ? '\n    totalCount: Int!' : ''}
  }
`;
  const edge = `
  type ${node}Edge {
    node: ${node}!
    cursor: String!
  }
`;
  return options.edge === false ? connection : connection + edge;
}

/**
 * Types every list shares: page info and the filter inputs. Equality is spelled `eq` in the
 * spec's customer filters and `equals` in its service filters; both are accepted everywhere.
 */
export const typeDefs = /* GraphQL */ `
  type PageInfo {
    hasNextPage: Boolean!
    hasPreviousPage: Boolean!
    startCursor: String
    endCursor: String
  }

  enum SortDirection {
    ASC
    DESC
  }

  input IdFilter {
    eq: ID
    equals: ID
    in: [ID!]
    notIn: [ID!]
  }

  "Tags of a visit's customer: eq/equals = has the tag, in = has any of them, notIn = has none."
  input IDFilter {
    eq: ID
    equals: ID
    in: [ID!]
    notIn: [ID!]
  }

  input EnumFilter {
    eq: String
    equals: String
    in: [String!]
    notIn: [String!]
  }

  "eq/equals/in are exact; contains and startsWith ignore case."
  input StringFilter {
    eq: String
    equals: String
    in: [String!]
    notIn: [String!]
    contains: String
    startsWith: String
  }

  input BooleanFilter {
    eq: Boolean
    equals: Boolean
  }

  "Bounds are inclusive (gte, lte) or strict (gt, lt). On a Date field the instant's UTC date is used."
  input DateTimeFilter {
    eq: DateTime
    equals: DateTime
    gte: DateTime
    lte: DateTime
    gt: DateTime
    lt: DateTime
  }

  "Conditions on a list of strings such as tags."
  input ScalarListFilter {
    has: String
    hasSome: [String!]
    hasEvery: [String!]
    isEmpty: Boolean
  }
`;

export const resolvers: Resolvers = {};
