import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';

/**
 * The sign-in and consent pages of the test server, completing themselves: the account is the request's
 * `login_hint` (else `defaultSubject`), and every scope and resource asked for is granted. A browser following
 * the redirects passes through them as a client over HTTP does.
 */
export function autoInteraction(
  provider: Provider,
  defaultSubject: string,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const { prompt, params, session } = await provider.interactionDetails(req, res);
    if (prompt.name === 'login') {
      const hint = typeof params.login_hint === 'string' ? params.login_hint : undefined;
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId: hint ?? defaultSubject } },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    const accountId = session?.accountId;
    const clientId = typeof params.client_id === 'string' ? params.client_id : undefined;
    const grant = new provider.Grant({
      ...(accountId === undefined ? {} : { accountId }),
      ...(clientId === undefined ? {} : { clientId }),
    });
    const scope = typeof params.scope === 'string' ? params.scope : '';
    grant.addOIDCScope(scope);
    const resources = params.resource === undefined ? [] : [params.resource].flat();
    for (const resource of resources) {
      if (typeof resource === 'string') grant.addResourceScope(resource, scope);
    }
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  };
}
