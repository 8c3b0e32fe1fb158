/**
 * Collects query parameters while a statement is assembled, so fragments built in different
 * places number their placeholders consistently.
 *
 * @example
 *   const p = new Params([orgId])          // $1 is the organization
 *   const where = `city = ${p.add('Mesa')}` // "city = $2"
 *   await db.query(`select ... where org_id = $1 and ${where}`, p.values)
 */
export class Params {
  readonly values: unknown[];

  constructor(initial: readonly unknown[] = []) {
    this.values = [...initial];
  }

  /** Adds a value and returns its placeholder. */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** Escapes LIKE wildcards so user text is matched literally. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, '\\$&');
}

/** `%text%` for a case-insensitive substring match of literal text. */
export function containsPattern(text: string): string {
  return `%${escapeLike(text.toLowerCase())}%`;
}
