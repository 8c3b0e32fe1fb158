/**
 * JSON text that PostgreSQL's jsonb accepts, for values kept as they were sent (the quarantine, the
 * conflict log): jsonb refuses the escape `\u0000` and a surrogate escape without its pair, and a
 * document holding either would make the very insert that keeps it fail, taking its whole push
 * down. Each becomes U+FFFD, as a lone surrogate in a text parameter already does on its way to
 * UTF-8. JSON.stringify writes a surrogate as an escape only when it is alone (a pair is written as
 * the character), and a backslash as `\\`, so an escape is a backslash preceded by an even number
 * of others.
 */
const UNSTORABLE_ESCAPE = /(\\+)u(0000|d[89a-f][0-9a-f]{2})/g;

export function jsonbText(value: unknown): string {
  return JSON.stringify(value).replace(UNSTORABLE_ESCAPE, (escape, slashes: string) =>
    slashes.length % 2 ? `${slashes.slice(1)}\\ufffd` : escape,
  );
}
