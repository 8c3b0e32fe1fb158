/** Events for integrators: the declared event types and the rules that make them. */
export * from './declarations.js';
