/** The shared schema: one definition per resource, and everything derived from it. */
export * from './errors.js';
export * from './validation.js';
export * from './resources/index.js';
export * from './schema/index.js';
export * from './sync/index.js';
export * from './chemistry/index.js';
export * from './events/index.js';
export * from './money.js';
