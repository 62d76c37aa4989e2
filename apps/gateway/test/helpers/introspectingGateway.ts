import { parseConfig } from '@skillgate/config';
import { createGateway, type Gateway } from '../../src/index.js';
import { type ProviderClient, startTestProvider, type TestProvider } from './oidcProvider.js';
import { EXAMPLES_ROOT, REPO_ROOT } from './testGateway.js';

/** How startIntrospectingGateway sets up the provider and the gateway. */
export interface IntrospectingGatewayOptions {
  /** The agent clients the provider issues opaque tokens to. */
  readonly agents: readonly ProviderClient[];
  /** The resource (audience) tokens are issued for. */
  readonly audience: string;
  /** `auth.oauth.failed_attempts_per_minute`; the config's default when not given. */
  readonly failedAttemptsPerMinute?: number;
  /** `server.trust_proxy`: the test speaks as the trusted proxy, naming client addresses in X-Forwarded-For. */
  readonly trustProxy?: boolean;
}

/** A real OAuth provider and a gateway that checks its opaque tokens by introspection. */
export interface IntrospectingGateway {
  readonly idp: TestProvider;
  readonly gateway: Gateway;
  /** Where the gateway listens (http://127.0.0.1:<port>). */
  readonly base: string;
  /** Its MCP endpoint. */
  readonly url: URL;
  close(): Promise<void>;
}

const SECRET = 'introspection-client-secret-0123456789';
// The gateway's own client at the provider, whose credentials it introspects with.
const GATEWAY_CLIENT: ProviderClient = { id: 'gateway', secret: SECRET, scopes: ['mcp'] };

/**
 * Starts oidc-provider with the agents and the gateway's own client, and a gateway on the example skills whose
 * tokens are introspected there (client-credentials answers carry no sub: the client is the principal).
 */
export async function startIntrospectingGateway(
  options: IntrospectingGatewayOptions,
): Promise<IntrospectingGateway> {
  const idp = await startTestProvider([...options.agents, GATEWAY_CLIENT]);
  const config = parseConfig(
    {
      server: { trust_proxy: options.trustProxy ?? false, public_url: 'http://127.0.0.1:1' },
      skills: { roots: [EXAMPLES_ROOT] },
      auth: {
        oauth: {
          issuer: idp.issuer,
          audience: options.audience,
          required_scopes: ['mcp'],
          principal_claim: 'client_id',
          ...(options.failedAttemptsPerMinute === undefined
            ? {}
            : { failed_attempts_per_minute: options.failedAttemptsPerMinute }),
          introspection: {
            endpoint: `${idp.issuer}/token/introspection`,
            client_id_env: 'INTROSPECTION_CLIENT_ID',
            client_secret_env: 'INTROSPECTION_CLIENT_SECRET',
          },
        },
      },
      rate_limit: { requests_per_second: 0 },
    },
    { baseDir: REPO_ROOT },
  );
  const gateway = await createGateway(config, {
    env: { ...process.env, INTROSPECTION_CLIENT_ID: GATEWAY_CLIENT.id, INTROSPECTION_CLIENT_SECRET: SECRET },
  });
  const base = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  return {
    idp,
    gateway,
    base,
    url: new URL('/mcp', base),
    async close() {
      await gateway.close();
      await idp.close();
    },
  };
}
