import { parseConfig } from '@skillgate/config';
import { describe, expect, it } from 'vitest';
import { credentialSecretEnvNames, credentialsSettings } from '../../../src/compose/credentialsSettings.js';
import { gatewaySettings } from '../../../src/compose/gatewaySettings.js';

const client = { client_id_env: 'X_ID', client_secret_env: 'X_SECRET' };
const config = (extra: object = {}) =>
  parseConfig(
    {
      server: { public_url: 'https://gw.example.com' },
      auth: { oauth: { issuer: 'https://idp.example.com' } },
      state: { backend: 'redis' },
      credentials: {
        keys: [{ id: 'k1', env: 'SG_KEY' }],
        connect: { login: { client_id_env: 'LOGIN_ID', client_secret_env: 'LOGIN_SECRET' } },
        providers: [
          {
            id: 'github',
            oauth: {
              issuer: 'https://gh.example.com',
              client_id_env: 'GH_ID',
              client_secret_env: 'GH_SECRET',
            },
          },
          { id: 'acme', secret: { label: 'ACME key' } },
        ],
      },
      upstreams: [
        { id: 'gh', url: 'https://gh.example.com/mcp', auth: { provider: 'github' } },
        {
          id: 'search',
          url: 'https://search.example.com/mcp',
          auth: {
            token_exchange: { token_endpoint: 'https://idp.example.com/token', ...client },
            discovery: { headers_from_env: { Authorization: 'SEARCH_LIST' } },
          },
        },
        {
          id: 'entra',
          url: 'https://entra.example.com/mcp',
          auth: {
            client_credentials: {
              token_endpoint: 'https://login.example.com/token',
              ...client,
              scopes: ['api://x/.default'],
              send_resource: false,
            },
          },
        },
        { id: 'local', command: ['node', 'x.js'] },
      ],
      ...extra,
    },
    { baseDir: '/' },
  );

describe('credentialsSettings', () => {
  it('reads the section with its defaults resolved: store, audience, resource, login issuer', () => {
    const settings = credentialsSettings(config());
    expect(settings).toMatchObject({
      store: 'redis',
      publicUrl: 'https://gw.example.com',
      login: {
        issuer: 'https://idp.example.com',
        clientIdEnv: 'LOGIN_ID',
        tokenEndpointAuthMethod: 'client_secret_basic',
      },
      providers: [
        { id: 'github', kind: 'oauth', issuer: 'https://gh.example.com' },
        { id: 'acme', kind: 'secret', label: 'ACME key' },
      ],
    });
    expect(settings?.upstreams).toEqual([
      { upstream: 'gh', kind: 'provider', provider: 'github' },
      {
        upstream: 'search',
        kind: 'token_exchange',
        discovery: { kind: 'headers', headersFromEnv: { Authorization: 'SEARCH_LIST' } },
        exchange: {
          tokenEndpoint: 'https://idp.example.com/token',
          clientIdEnv: 'X_ID',
          clientSecretEnv: 'X_SECRET',
          tokenEndpointAuthMethod: 'client_secret_basic',
          scopes: [],
          // The audience defaults to the upstream's URL and is sent as the resource too.
          audience: 'https://search.example.com/mcp',
          resource: 'https://search.example.com/mcp',
          staticPrincipals: 'deny',
        },
      },
      {
        upstream: 'entra',
        kind: 'client_credentials',
        // send_resource: false: no resource (Entra's v2 endpoint refuses it), and no audience was given.
        client: {
          tokenEndpoint: 'https://login.example.com/token',
          clientIdEnv: 'X_ID',
          clientSecretEnv: 'X_SECRET',
          tokenEndpointAuthMethod: 'client_secret_basic',
          scopes: ['api://x/.default'],
        },
      },
    ]);
  });

  it('is undefined when nothing is configured, and a file store without Redis', () => {
    expect(credentialsSettings(parseConfig({}, { baseDir: '/' }))).toBeUndefined();
    expect(credentialsSettings(config({ state: { backend: 'memory' } }))?.store).toBe('file');
  });

  it('keeps keys, client secrets and discovery headers from scripts and logs like tokens', () => {
    const names = credentialSecretEnvNames(credentialsSettings(config()));
    expect([...names].sort()).toEqual(
      [
        'SG_KEY',
        'LOGIN_ID',
        'LOGIN_SECRET',
        'GH_ID',
        'GH_SECRET',
        'X_ID',
        'X_SECRET',
        'SEARCH_LIST',
        'X_ID',
        'X_SECRET',
      ].sort(),
    );
    expect(gatewaySettings(config()).secretEnvNames).toEqual(
      expect.arrayContaining(['SG_KEY', 'GH_SECRET', 'SEARCH_LIST']),
    );
  });
});
