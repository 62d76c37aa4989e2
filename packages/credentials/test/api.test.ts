import { describe, expect, expectTypeOf, it } from 'vitest';
import type {
  CallbackResult,
  ClientCredentialsSettings,
  ClientSettings,
  ConnectionState,
  CredentialAnswer,
  Credentials,
  CredentialsErrorCode,
  CredentialsLogEntry,
  CredentialsSettings,
  DiscoveryAuth,
  FlowLink,
  FlowView,
  HeadersAnswer,
  KeySettings,
  OAuthProviderSettings,
  ProviderSettings,
  RequestStateClaims,
  RequestStateCodec,
  ScriptCredential,
  ScriptEnvAnswer,
  SecretProviderSettings,
  TokenEndpointAuthMethod,
  TokenExchangeSettings,
  UpstreamAuth,
} from '../src/index.js';
import * as api from '../src/index.js';

// The package's public API (README.md) is what the gateway builds on: a change here is a change for it.
describe('the public API', () => {
  it('exports three values: the factory, the error class and the default file path', () => {
    expect(Object.keys(api).sort()).toEqual([
      'CredentialsError',
      'createCredentials',
      'defaultCredentialsFile',
    ]);
    const error = new api.CredentialsError('CONNECT_REQUIRED', 'connect github', { provider: 'github' });
    expect(error).toMatchObject({ name: 'CredentialsError', code: 'CONNECT_REQUIRED', provider: 'github' });
  });

  it('answers in the documented shapes', () => {
    expectTypeOf<HeadersAnswer>().toEqualTypeOf<
      CredentialAnswer<{ readonly kind: 'headers'; readonly headers: Readonly<Record<string, string>> }>
    >();
    expectTypeOf<Extract<HeadersAnswer, { kind: 'connect' }>>().toEqualTypeOf<{
      readonly kind: 'connect';
      readonly provider: string;
    }>();
    expectTypeOf<
      Extract<ScriptEnvAnswer, { kind: 'refused' }>['code']
    >().toEqualTypeOf<CredentialsErrorCode>();
    expectTypeOf<CallbackResult['kind']>().toEqualTypeOf<'login' | 'connected'>();
    expectTypeOf<ConnectionState['state']>().toEqualTypeOf<'connected' | 'expired'>();
    expectTypeOf<FlowLink>().toHaveProperty('url').toEqualTypeOf<string>();
    expectTypeOf<FlowView['kind']>().toEqualTypeOf<'oauth' | 'secret'>();
    expectTypeOf<CredentialsLogEntry>().not.toHaveProperty('token');
    expectTypeOf<Credentials['requestState']>().toEqualTypeOf<RequestStateCodec>();
    expectTypeOf<ReturnType<RequestStateCodec['decode']>>().toEqualTypeOf<RequestStateClaims>();
  });

  it('takes settings a config reader fills in', () => {
    expectTypeOf<CredentialsSettings['store']>().toEqualTypeOf<'file' | 'redis'>();
    expectTypeOf<CredentialsSettings['keys']>().toEqualTypeOf<readonly KeySettings[]>();
    expectTypeOf<CredentialsSettings['scripts']>().toEqualTypeOf<readonly ScriptCredential[]>();
    expectTypeOf<ProviderSettings>().toEqualTypeOf<OAuthProviderSettings | SecretProviderSettings>();
    expectTypeOf<OAuthProviderSettings>().toExtend<ClientSettings>();
    expectTypeOf<TokenExchangeSettings>().toExtend<ClientCredentialsSettings>();
    expectTypeOf<ClientSettings['tokenEndpointAuthMethod']>().toEqualTypeOf<TokenEndpointAuthMethod>();
    expectTypeOf<UpstreamAuth['discovery']>().toEqualTypeOf<DiscoveryAuth | undefined>();
  });
});
