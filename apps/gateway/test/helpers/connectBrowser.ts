import { type AuthorizationServer, BACKEND_HEADER } from '@skillgate/testkit';

/** A page a ConnectBrowser got: its status, where it redirects, its text. */
export interface BrowserPage {
  readonly status: number;
  readonly location: string | undefined;
  readonly text: string;
  /** The replica that answered, when the page came through the test HAProxy (r0, r1, ...). */
  readonly backend: string | undefined;
}

/**
 * A person's browser on the gateway's connect pages, as plain HTTP: it keeps the gateway's cookie, sends
 * forms with its Origin as a browser does, and lets the test authorization server's automatic sign-in and
 * consent stand for the provider's pages. It does not follow redirects, so it checks neither the pages' CSP
 * nor their referrer policy: test/credentials/connectPageChromium.test.ts drives chromium through the same
 * pages (typed sign-in and consent at oidc-provider's own forms, the token form).
 */
export class ConnectBrowser {
  private cookie: string | undefined;

  constructor(private readonly base: string) {}

  /** GET a page of the gateway (redirects not followed). */
  async get(url: string): Promise<BrowserPage> {
    return this.send(url, { method: 'GET' });
  }

  /** POSTs a form of the gateway's pages. */
  async post(url: string, form: Record<string, string>): Promise<BrowserPage> {
    return this.send(url, {
      method: 'POST',
      body: new URLSearchParams(form).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(this.base).origin },
    });
  }

  /**
   * Follows a connect link as a static-token principal: the token form, then the provider (the test server
   * signs in `subject` and consents), then the callback. Returns the callback's page.
   */
  async connectWithToken(
    link: string,
    token: string,
    server: AuthorizationServer,
    subject = 'alice',
  ): Promise<BrowserPage> {
    const bound = await this.post(link, { token });
    if (bound.status !== 303) return bound;
    const next = await this.get(new URL(bound.location ?? '', this.base).href);
    if (next.status !== 303 || next.location === undefined) return next;
    const authorization = new URL(next.location);
    authorization.searchParams.set('login_hint', subject);
    return this.get(await server.authorize(authorization.href));
  }

  /**
   * Follows a connect link as an OAuth principal: the page's sign-in at `signIn.server` (the gateway's issuer;
   * the test server signs in `signIn.subject`), back to the gateway, then the provider (`provider.subject`),
   * then the callback. Returns every gateway page on the way, the last the callback's.
   */
  async connectWithSignIn(
    link: string,
    signIn: { readonly server: AuthorizationServer; readonly subject: string },
    provider: { readonly server: AuthorizationServer; readonly subject: string },
  ): Promise<BrowserPage[]> {
    const pages = [await this.get(link)];
    const toIssuer = await this.get(`${new URL(link, this.base).pathname}/sign-in`);
    pages.push(toIssuer);
    if (toIssuer.status !== 303 || toIssuer.location === undefined) return pages;
    const back = await this.get(await signIn.server.authorize(withHint(toIssuer.location, signIn.subject)));
    pages.push(back);
    if (back.status !== 303 || back.location === undefined) return pages;
    pages.push(await this.get(await provider.server.authorize(withHint(back.location, provider.subject))));
    return pages;
  }

  /** Follows a secret provider's connect link as a static-token principal: the token form, then the secret form. */
  async connectSecretWithToken(link: string, token: string, secret: string): Promise<BrowserPage> {
    const bound = await this.post(link, { token });
    if (bound.status !== 303) return bound;
    const page = await this.get(new URL(bound.location ?? '', this.base).href);
    if (page.status !== 200) return page;
    return this.post(`${new URL(link, this.base).pathname}/secret`, { secret });
  }

  private async send(url: string, init: RequestInit): Promise<BrowserPage> {
    const headers = new Headers(init.headers);
    if (this.cookie !== undefined) headers.set('cookie', this.cookie);
    const response = await fetch(new URL(url, this.base), { ...init, headers, redirect: 'manual' });
    const set = response.headers.get('set-cookie');
    if (set !== null) this.cookie = set.split(';')[0];
    return {
      status: response.status,
      location: response.headers.get('location') ?? undefined,
      text: await response.text(),
      backend: response.headers.get(BACKEND_HEADER) ?? undefined,
    };
  }
}

const withHint = (url: string, hint: string): string => {
  const u = new URL(url);
  u.searchParams.set('login_hint', hint);
  return u.href;
};
