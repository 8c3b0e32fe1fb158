/**
 * camelCase -> snake_case, keeping acronyms together.
 * @example toSnakeCase('billingCCEmail') === 'billing_cc_email'
 */
export function toSnakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}
