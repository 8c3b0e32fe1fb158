import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { GraphQLError, Lexer, Source, TokenKind, getNamedType, getNullableType, isListType, parse, type DocumentNode, type ValidationRule } from 'graphql';
import { createComplexityRule, type ComplexityEstimator } from 'graphql-query-complexity';
import { DEFAULT_PAGE_SIZE } from '../../operations/pagination.js';

/**
 * Limits checked while a document is validated, before any resolver runs: a query nested too
 * deep (graphql-armor's max-depth) or one that would touch too many records (graphql-query-
 * complexity, with the estimate below) is refused with BAD_USER_INPUT naming the limit.
 */
export interface GraphQLLimits {
  maxDepth: number;
  maxCost: number;
}

/**
 * Cost = records a query may return. A paged field costs `first` times what each item costs
 * (`first` is capped at 100 by the operations); a list without paging is counted as
 * UNPAGED_LIST_SIZE items (quote lines, bodies of water, quoted prices); an object costs 1, a
 * scalar nothing. Aliases add up, so a hundred aliases of one page cost a hundred pages.
 */
const UNPAGED_LIST_SIZE = 10;

const recordsEstimator: ComplexityEstimator = ({ field, args, childComplexity }) => {
  // Introspection is bounded by the schema's size: graphql-js's own MaxIntrospectionDepthRule
  // (among the specified rules) refuses going round its cycles (__Type.fields.type.fields...).
  if (field.name === '__schema' || field.name === '__type') return 1;
  const type = getNullableType(field.type);
  const isObject = 'getFields' in getNamedType(type);
  if (field.args.some((a) => a.name === 'first')) {
    const page = typeof args.first === 'number' ? args.first : typeof args.last === 'number' ? args.last : DEFAULT_PAGE_SIZE;
    return page * Math.max(childComplexity, 1);
  }
  // A connection's edges are the page already counted by `first` on the connection.
  if (isListType(type) && field.name !== 'edges') return UNPAGED_LIST_SIZE * (isObject ? 1 + childComplexity : 0);
  return isObject ? 1 + childComplexity : 0;
};

export function limitRules(limits: GraphQLLimits, variables: Record<string, unknown> | undefined): ValidationRule[] {
  return [
    maxDepthRule({
      n: limits.maxDepth,
      // The standard introspection query (an explorer's schema load) is 21 levels deep by nature;
      // graphql-js bounds introspection by refusing its cycles instead (see the estimator).
      ignoreIntrospection: true,
      exposeLimits: true,
      // Reported in our words: the library's own error calls this a "Syntax Error".
      propagateOnRejection: false,
      onReject: [(context, error) => context?.reportError(new GraphQLError(`Query refused: ${error.message.replace(/^Syntax Error: /, '')} (GRAPHQL_MAX_DEPTH)`))],
    }),
    createComplexityRule({
      maximumComplexity: limits.maxCost,
      estimators: [recordsEstimator],
      variables: variables ?? {},
      createError: (max, actual) =>
        new GraphQLError(`Query refused: it may return about ${actual} records, more than GRAPHQL_MAX_COST (${max}); ask for smaller pages or fewer fields`),
    }),
  ];
}


/**
 * How deep a document may nest braces, brackets and parentheses (selections, arguments, literal
 * values) before it is parsed. graphql-js parses by recursion: a query nested 5,000 levels threw
 * "Maximum call stack size exceeded" from inside the parser. Counted with graphql-js's own lexer,
 * which does not recurse; above GRAPHQL_MAX_DEPTH's highest setting (100), so that limit, checked
 * later with its own message, is the one a real query meets.
 */
export const MAX_DOCUMENT_NESTING = 128;

const OPENING = new Set<string>([TokenKind.BRACE_L, TokenKind.BRACKET_L, TokenKind.PAREN_L]);
const CLOSING = new Set<string>([TokenKind.BRACE_R, TokenKind.BRACKET_R, TokenKind.PAREN_R]);

/** graphql-js's parse, refusing first a document nested deeper than MAX_DOCUMENT_NESTING. */
export function parseWithinNesting(source: string | Source): DocumentNode {
  const lexer = new Lexer(typeof source === 'string' ? new Source(source) : source);
  let depth = 0;
  // A syntax error is thrown by the lexer here exactly as parse() would throw it.
  for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) {
    if (OPENING.has(token.kind) && ++depth > MAX_DOCUMENT_NESTING) {
      throw new GraphQLError(`Query refused: it nests braces, brackets or parentheses more than ${MAX_DOCUMENT_NESTING} levels deep; selections may nest at most GRAPHQL_MAX_DEPTH levels`);
    }
    if (CLOSING.has(token.kind)) depth--;
  }
  return parse(source);
}
