export * from './fields.js';
export * from './graphql.js';
export * from './naming.js';
export * from './resource.js';
export * from './rxdb.js';
export * from './sql.js';
export * from './validate.js';
export * from './csv.js';
