import type { AuthPolicy } from '../../operations/auth-policy.js';
import type { OperationContext } from '../../operations/context.js';
import type { GeneratedPdfRef, InvoicePdfRef } from '../http/file-links.js';
import { createLoaders, type Loaders } from './loaders.js';
import { STRICT_POLICY, type WebhookPolicy } from '../../operations/events/endpoints.js';

/** The GraphQL context: the operation context plus this request's batch loaders. */
export type GraphQLContext = OperationContext & {
  loaders: Loaders;
  /** A signed, expiring link to a stored file, pointing at the host the client called. */
  fileUrl: (key: string) => string;
  /** The same for a quote's generated PDF (made when the link is first fetched). */
  quotePdfUrl: (pdf: GeneratedPdfRef) => string;
  /** The same for an invoice's PDF (made as the invoice is when the link is fetched). */
  invoicePdfUrl: (pdf: InvoicePdfRef) => string;
  /** The technician app's link that signs a phone in with this one-time code, on the host the client called. */
  phoneSignInLink: (code: string) => string;
  /** How long credentials last, and the clock (operations/auth-policy.ts). */
  auth: AuthPolicy;
  /** Tells the bulk worker a job was queued (so it need not wait for its next poll). */
  bulkStarted?: () => void;
  /** True when the whole request runs in one transaction (ctx.db is bound to it): see atomic-mutations.ts. */
  inRequestTransaction?: boolean;
  /** What webhook endpoint URLs may be (WEBHOOK_ALLOW_HTTP, WEBHOOK_ALLOW_PRIVATE_ADDRESSES). */
  webhookPolicy: WebhookPolicy;
  /**
   * Marks a value of the answer as shown once: the answer kept for Idempotency-Key replays has
   * null in its place (a webhook signing secret). Absent when no answer is kept.
   */
  concealInReplays?: (value: string) => void;
};

/** What links in answers are made with, bound to the request's host. */
export interface LinkMakers {
  file: (key: string) => string;
  quotePdf: (pdf: GeneratedPdfRef) => string;
  invoicePdf: (pdf: InvoicePdfRef) => string;
  phoneSignIn: (code: string) => string;
}

/** What a request's GraphQL context carries besides the operation context and links. */
export interface ContextOptions {
  auth: AuthPolicy;
  bulkStarted?: (() => void) | undefined;
  inRequestTransaction?: boolean;
  webhookPolicy?: WebhookPolicy;
  concealInReplays?: ((value: string) => void) | undefined;
}

export function graphqlContext(ctx: OperationContext, links: LinkMakers, options: ContextOptions): GraphQLContext {
  return {
    ...ctx,
    loaders: createLoaders(ctx),
    fileUrl: links.file,
    quotePdfUrl: links.quotePdf,
    invoicePdfUrl: links.invoicePdf,
    phoneSignInLink: links.phoneSignIn,
    auth: options.auth,
    bulkStarted: options.bulkStarted,
    inRequestTransaction: options.inRequestTransaction ?? false,
    webhookPolicy: options.webhookPolicy ?? STRICT_POLICY,
    concealInReplays: options.concealInReplays,
  };
}

/** A resolver map for one module (typed loosely: graphql-js checks shapes at run time). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Resolvers = Record<string, Record<string, any>>;
