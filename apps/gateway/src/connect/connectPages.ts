import type { ConnectionState, FlowView } from '@skillgate/credentials';
import { html, SafeHtml } from '../core/html.js';
import { PAGE_STYLE } from '../core/pageStyle.js';

// No script, nothing loaded from elsewhere, forms post only back here (and, for the token form of an OAuth
// flow, on to the provider its redirects lead to: a browser checks form-action on every redirect of a form's
// POST), no framing, a referrer only to the gateway itself (the callback's code must not leak to another site).
// Not no-referrer: under it a browser sends `Origin: null` with the pages' own form POSTs, which the Origin check
// of connectRoutes.ts refuses. Both are what chromium does: test/credentials/connectPageChromium.test.ts.
/** The headers every connect page is sent with; `formTargets`: origins its form's redirects may end at. */
export const pageHeaders = (formTargets: readonly string[] = []): Record<string, string> => ({
  'Content-Security-Policy': `default-src 'none'; style-src 'unsafe-inline'; form-action ${["'self'", ...formTargets].join(' ')}; frame-ancestors 'none'; base-uri 'none'`,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'Cache-Control': 'no-store',
});

/** How a browser may prove which principal it is: the ways this gateway offers. */
export interface BindingChoices {
  /** Sign in at the gateway's own issuer (`credentials.connect.login`): for OAuth principals. */
  readonly signInUrl?: string;
  /** The form a static-token principal types its gateway token into (POST, never a URL). */
  readonly tokenAction?: string;
}

// The stylesheet is the gateway's own text, never input: inserted as is.
const STYLE = new SafeHtml(PAGE_STYLE);

const page = (title: string, body: SafeHtml): string =>
  html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>skillgate: ${title}</title><style>${STYLE}</style></head><body><main><section>${body}</section></main></body></html>`
    .text;

/** Asks the browser to prove it is the principal the link was made for, before anything leaves the gateway. */
export function bindingPage(what: string, choices: BindingChoices): string {
  const signIn =
    choices.signInUrl === undefined
      ? ''
      : html`<p><a href="${choices.signInUrl}" id="sign-in">Sign in</a> with the account your agent uses.</p>`;
  const token =
    choices.tokenAction === undefined
      ? ''
      : html`<form method="post" action="${choices.tokenAction}"><p><label>Your skillgate token <input type="password" name="token" autocomplete="off" required></label></p><p><button type="submit">Continue</button></p></form>`;
  return page(
    'who are you?',
    html`<h1>${what}</h1><p>First show that you are the person your agent acts for. Nothing is sent anywhere before that.</p>${signIn}${token}`,
  );
}

/** What a provider is called on the pages: a secret provider's label, else its id. */
export const labelOf = (flow: Pick<FlowView, 'provider' | 'label'>): string => flow.label ?? flow.provider;

/** A secret provider's form: the value goes to the gateway's encrypted store only. */
export function secretPage(flow: FlowView, action: string): string {
  const label = labelOf(flow);
  return page(
    `connect ${flow.provider}`,
    html`<h1>Connect ${label}</h1><p>Type your own ${label}. It is stored encrypted and used only for your calls.</p><form method="post" action="${action}"><p><input type="password" name="secret" autocomplete="off" required aria-label="${label}"></p><p><button type="submit">Save</button></p></form>`,
  );
}

/** The end of a flow. */
export function connectedPage(provider: string): string {
  return page(
    'connected',
    html`<h1 id="connected">Connected: ${provider}</h1><p>You can close this page and go back to your agent; its next call uses your own account.</p>`,
  );
}

/** The principal's connections, each with a disconnect form. */
export function connectionsPage(connections: readonly ConnectionState[]): string {
  const rows = connections.map(
    (c) =>
      html`<tr><td>${c.provider}</td><td>${c.state}</td><td>${c.expiresAt === undefined ? '' : new Date(c.expiresAt).toISOString()}</td><td><form method="post" action="/connections/${encodeURIComponent(c.provider)}/delete"><button type="submit">Disconnect</button></form></td></tr>`,
  );
  const table =
    connections.length === 0
      ? html`<p id="none">No connected accounts.</p>`
      : html`<table><thead><tr><th>provider</th><th>state</th><th>expires</th><th></th></tr></thead><tbody>${rows}</tbody></table>`;
  return page('your connections', html`<h1>Your connected accounts</h1>${table}`);
}

/** A refusal as a page: its status, its code, and what a person can do. */
export function refusalPage(code: string, message: string): string {
  return page(code, html`<h1>${code}</h1><p>${message}</p>`);
}
