import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { assertSafeBinding, isLoopbackHost, parseConfig, resolveAuthTokens } from '../src/index.js';

const sha = (s: string) => createHash('sha256').update(s).digest();

describe('resolveAuthTokens', () => {
  const config = parseConfig(
    {
      auth: {
        tokens: [
          { name: 'a', token_env: 'TOKEN_A' },
          { name: 'b', token_sha256: sha('bee').toString('hex'), skills: ['x*'] },
        ],
      },
    },
    { baseDir: '/' },
  );

  it('hashes env tokens and decodes sha256 tokens', () => {
    const tokens = resolveAuthTokens(config, { TOKEN_A: 'secret-a' });
    expect(tokens[0]?.sha256.equals(sha('secret-a'))).toBe(true);
    expect(tokens[1]?.sha256.equals(sha('bee'))).toBe(true);
    expect(tokens[1]?.skills).toEqual(['x*']);
  });

  it('names the missing variable, never a value', () => {
    expect(() => resolveAuthTokens(config, {})).toThrow(
      expect.objectContaining({
        code: 'CONFIG_INVALID',
        issues: [expect.objectContaining({ path: 'auth.tokens[0].token_env' })],
      }),
    );
    expect(() => resolveAuthTokens(config, { TOKEN_A: '' })).toThrow(/TOKEN_A/);
  });
});

describe('secure binding', () => {
  it('knows loopback hosts', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]'])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['0.0.0.0', '10.0.0.1', 'example.com', '::'])
      expect(isLoopbackHost(host), host).toBe(false);
  });

  it('refuses a public bind without tokens unless anonymous access is allowed', () => {
    const open = parseConfig({ server: { host: '0.0.0.0' } }, { baseDir: '/' });
    expect(() => assertSafeBinding(open, [])).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    const anonymous = parseConfig(
      { server: { host: '0.0.0.0' }, auth: { allow_anonymous: true } },
      { baseDir: '/' },
    );
    expect(() => assertSafeBinding(anonymous, [])).not.toThrow();
    expect(() => assertSafeBinding(open, [{ name: 'a', sha256: sha('x'), skills: ['*'] }])).not.toThrow();
    expect(() => assertSafeBinding(parseConfig({}, { baseDir: '/' }), [])).not.toThrow();
  });
});
