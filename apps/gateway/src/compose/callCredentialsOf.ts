import type { Credentials } from '@skillgate/credentials';
import { credentialOwnerOf, type Principal } from '../auth/accessPolicy.js';
import { GatewayError } from '../errors/gatewayError.js';
import type { CallCredentials, CredentialLookup } from '../tools/callCredentials.js';

const unavailable = (message: string): CredentialLookup => ({
  kind: 'refused',
  reason: 'CREDENTIAL_UNAVAILABLE',
  message,
});

const invalidState = (): GatewayError =>
  new GatewayError('INVALID_REQUEST_STATE', 'Invalid or expired requestState');

/**
 * The credentials service as tool calls use it (tools/callCredentials.ts): the package's answers become
 * headers, variables, a connect need with the gateway's own link, or a refusal; requestState is sealed by the
 * package's codec and bound to the principal and the tool called.
 */
export function callCredentialsOf(credentials: Credentials): CallCredentials {
  const lookupOf = async (
    answer: Awaited<ReturnType<Credentials['headersFor']>> | Awaited<ReturnType<Credentials['scriptEnv']>>,
    principal: Principal,
    tool: string,
  ): Promise<CredentialLookup> => {
    if (answer.kind === 'headers') return { kind: 'ready', values: answer.headers };
    if (answer.kind === 'env') return { kind: 'ready', values: answer.env };
    if (answer.kind === 'refused') return unavailable(answer.message);
    const owner = credentialOwnerOf(principal);
    // Requests without a token are everyone's: they connect nothing.
    if (owner === undefined)
      return unavailable(`${tool} needs a connected ${answer.provider} account; connect one with a token`);
    const link = await credentials.startFlow(owner, answer.provider);
    return {
      kind: 'connect',
      need: {
        provider: answer.provider,
        url: link.url,
        flowId: link.id,
        expiresAt: link.expiresAt,
        message: `Connect your ${answer.provider} account to use ${tool}`,
      },
    };
  };
  return {
    async upstreamHeaders({ target, principal, callerToken, tool }) {
      const owner = credentialOwnerOf(principal) ?? principal.id;
      return lookupOf(await credentials.headersFor(target, owner, callerToken), principal, tool);
    },
    upstreamRefused({ target, principal }, sent) {
      return credentials.onUpstream401(target, credentialOwnerOf(principal) ?? principal.id, sent);
    },
    async scriptEnv({ target, principal, tool }) {
      const owner = credentialOwnerOf(principal) ?? principal.id;
      return lookupOf(await credentials.scriptEnv(target, owner), principal, tool);
    },
    async mintRequestState(need, principal, tool) {
      const owner = credentialOwnerOf(principal);
      if (owner === undefined) throw invalidState();
      return credentials.requestState.encode({
        flow: need.flowId,
        principal: owner,
        subject: tool,
        expiresAt: need.expiresAt,
      });
    },
    async checkRequestState(state, principal, tool) {
      // Tampered, foreign or expired: the package throws REQUEST_STATE_* (errors/toGatewayError.ts maps it).
      const claims = credentials.requestState.decode(state);
      if (claims.principal !== credentialOwnerOf(principal) || claims.subject !== tool) throw invalidState();
    },
  };
}
