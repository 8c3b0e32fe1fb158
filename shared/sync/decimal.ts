import * as z from 'zod';

/**
 * A non-negative integer as a query parameter carries it: decimal digits only. Number() would
 * also read "0x10", "1e3", " 7" and "7.0", so a mistyped checkpoint could pass as another
 * position; this refuses them, naming what it wants. At most 15 digits, so every value is exact.
 */
export const DecimalQueryInteger = z
  .string()
  .regex(/^\d{1,15}$/, 'must be a decimal integer such as 42')
  .transform(Number);
