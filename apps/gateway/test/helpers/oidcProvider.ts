import {
  type AuthorizationClient,
  type AuthorizationServer,
  startAuthorizationServer,
} from '@skillgate/testkit';

export { makeKey } from '@skillgate/testkit';

/** A client registered at the provider (client credentials), with the scopes it may ask for. */
export type ProviderClient = AuthorizationClient & { readonly scopes: readonly string[] };

/** A real OpenID provider on a loopback port, for the gateway's OAuth tests (testkit's authorization server). */
export type TestProvider = AuthorizationServer;

/** Starts the provider with these clients; every client may get tokens for any resource. */
export const startTestProvider = (clients: readonly ProviderClient[]): Promise<TestProvider> =>
  startAuthorizationServer({ clients, scopes: [...new Set(clients.flatMap((c) => c.scopes))] });
