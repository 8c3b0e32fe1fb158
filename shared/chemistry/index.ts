/** Water chemistry: pure functions and definitions, the same on the server, the SDK and the apps. */
export * from './chemicals.js';
export * from './ranges.js';
export * from './settings.js';
export * from './types.js';
export * from './units.js';
export * from './engine.js';
export * from './visit.js';
