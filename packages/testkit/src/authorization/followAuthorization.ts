/**
 * Follows an authorization URL like a browser (cookies kept, redirects followed) until it leaves the
 * server at `issuer`, and returns that URL: the client's redirect URI with code, state and iss.
 */
export async function followAuthorization(issuer: string, authorizationUrl: string): Promise<string> {
  const cookies = new Map<string, string>();
  let url = authorizationUrl;
  for (let hop = 0; hop < 20; hop++) {
    if (!url.startsWith(issuer)) return url;
    const response = await fetch(url, {
      redirect: 'manual',
      headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair?.indexOf('=') ?? -1;
      if (pair !== undefined && eq > 0) cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    const location = response.headers.get('location');
    await response.body?.cancel();
    if (location === null) throw new Error(`authorization stopped at ${response.status} without a redirect`);
    url = new URL(location, url).href;
  }
  throw new Error('authorization redirected more than 20 times');
}
