import { gql, type GraphQLResponse } from './server.js';

/** The data of a response that must have succeeded; fails the test with the errors otherwise. */
export function ok<T = Record<string, any>>(response: GraphQLResponse<T>): T {
  if (response.errors?.length || !response.data) {
    throw new Error(`GraphQL errors: ${JSON.stringify(response.errors)}`);
  }
  return response.data;
}

/** A caller bound to a server and token: `await as(admin)(QUERY, vars)`. */
export function caller(server: { url: string }, token: string) {
  return (query: string, variables?: Record<string, unknown>) => gql(server, token, query, variables);
}

const CREATE_TOKEN = `mutation CreateApiToken($input: CreateApiTokenInput!) {
  createApiToken(input: $input) { token apiToken { userId } } }`;

/** A new user with the role in the admin's organization, and its token. */
export async function tokenFor(server: { url: string }, adminToken: string, role: string) {
  const data = ok(await gql(server, adminToken, CREATE_TOKEN, { input: { name: `${role} user`, role } }));
  return data.createApiToken as { token: string; apiToken: { userId: string } };
}
