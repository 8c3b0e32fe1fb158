/**
 * Node's `assert`, as much of it as RxDB's test-utils call, for the storage bench's page (a browser
 * has no `assert` module; esbuild maps the import here). Each throws as Node's does when its check fails.
 */
function fail(message: string | undefined, fallback: string): never {
  throw new Error(message ?? fallback);
}

const assert = {
  ok(value: unknown, message?: string): void {
    if (!value) fail(message, `expected a truthy value, got ${String(value)}`);
  },
  strictEqual(actual: unknown, expected: unknown, message?: string): void {
    if (!Object.is(actual, expected)) fail(message, `expected ${String(expected)}, got ${String(actual)}`);
  },
  notStrictEqual(actual: unknown, expected: unknown, message?: string): void {
    if (Object.is(actual, expected)) fail(message, `expected anything but ${String(expected)}`);
  },
  deepStrictEqual(actual: unknown, expected: unknown, message?: string): void {
    if (JSON.stringify(actual) !== JSON.stringify(expected)) fail(message, `expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  },
};

export default assert;
