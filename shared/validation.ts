/**
 * How a failed validation is told to a person, everywhere (operations, bulk items, sync documents,
 * configuration, the SDK): one line per problem, "path: message", the whole value named by
 * `whole` when the problem is not in a field (no prefix when `whole` is empty).
 */
export interface ValidationIssue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

export function issueLines(issues: readonly ValidationIssue[], whole = '(input)'): string[] {
  return issues.map((issue) => {
    const where = issue.path.length ? issue.path.map(String).join('.') : whole;
    return where ? `${where}: ${issue.message}` : issue.message;
  });
}

/** The first `limit` problems on one line, separated by semicolons. */
export function describeIssues(issues: readonly ValidationIssue[], { whole = '(input)', limit = 10 }: { whole?: string; limit?: number } = {}): string {
  return issueLines(issues, whole).slice(0, limit).join('; ');
}
