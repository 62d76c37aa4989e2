export { createCredentials } from './createCredentials.js';
export { CredentialsError, type CredentialsErrorCode } from './credentialsError.js';
export type { RequestStateClaims, RequestStateCodec } from './flows/requestState.js';
export type {
  ClientCredentialsSettings,
  ClientSettings,
  CredentialsSettings,
  DiscoveryAuth,
  KeySettings,
  OAuthProviderSettings,
  ProviderSettings,
  ScriptCredential,
  SecretProviderSettings,
  TokenEndpointAuthMethod,
  TokenExchangeSettings,
  UpstreamAuth,
} from './settings.js';
export { defaultCredentialsFile } from './store/defaultCredentialsFile.js';
export type {
  CallbackResult,
  ConnectionState,
  CredentialAnswer,
  Credentials,
  CredentialsEvent,
  CredentialsLogEntry,
  CredentialsOptions,
  FlowLink,
  FlowView,
  HeadersAnswer,
  ScriptEnvAnswer,
  SignInSecrets,
} from './types.js';
