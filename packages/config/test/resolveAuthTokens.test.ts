import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig, resolveAuthTokens } from '../src/index.js';

const sha = (text: string): Buffer => createHash('sha256').update(text).digest();

// Runs fn, which must throw a ConfigError, and returns it.
function thrown(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('resolveAuthTokens', () => {
  const config = parseConfig(
    {
      auth: {
        tokens: [
          { name: 'a', token_env: 'TOKEN_A' },
          { name: 'b', token_sha256: sha('bee').toString('hex').toUpperCase(), skills: ['x*'] },
          { name: 'c', token_env: 'TOKEN_C', skills: [] },
        ],
      },
    },
    { baseDir: '/' },
  );

  it('hashes env tokens and decodes sha256 hex (any case), keeping names and skills in order', () => {
    const tokens = resolveAuthTokens(config, { TOKEN_A: 'secret-a', TOKEN_C: 'secret-c' });
    expect(tokens.map((t) => [t.name, t.sha256.toString('hex'), t.skills])).toEqual([
      ['a', sha('secret-a').toString('hex'), ['*']],
      ['b', sha('bee').toString('hex'), ['x*']],
      ['c', sha('secret-c').toString('hex'), []],
    ]);
  });

  it('keeps no plain token in the result', () => {
    const tokens = resolveAuthTokens(config, { TOKEN_A: 'secret-a', TOKEN_C: 'secret-c' });
    expect(JSON.stringify(tokens)).not.toContain('secret');
    expect(Object.isFrozen(tokens)).toBe(true);
    expect(Object.isFrozen(tokens[0])).toBe(true);
  });

  it('names every missing or empty variable, never a value', () => {
    const error = thrown(() => resolveAuthTokens(config, { TOKEN_A: '', TOKEN_B: 'not-used' }));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.issues.map((i) => i.path)).toEqual(['auth.tokens[0].token_env', 'auth.tokens[2].token_env']);
    expect(error.issues[0]?.message).toContain('TOKEN_A');
    expect(error.issues[1]?.message).toContain('TOKEN_C');
  });

  it('on a non-loopback bind refuses a token shorter than 16 characters, naming the variable; loopback takes any', () => {
    const exposed = parseConfig(
      { server: { host: '0.0.0.0' }, auth: { tokens: [{ name: 'a', token_env: 'TOKEN_A' }] } },
      { baseDir: '/' },
    );
    const error = thrown(() => resolveAuthTokens(exposed, { TOKEN_A: 'short-secret' }));
    expect(error.issues.map((i) => i.path)).toEqual(['auth.tokens[0].token_env']);
    expect(error.issues[0]?.message).toContain('TOKEN_A');
    expect(error.message).not.toContain('short-secret');
    expect(resolveAuthTokens(exposed, { TOKEN_A: 'x'.repeat(16) })).toHaveLength(1);
    expect(resolveAuthTokens(config, { TOKEN_A: 'a', TOKEN_C: 'c' })).toHaveLength(3);
  });

  it('does not echo the value of a variable that is set', () => {
    const error = thrown(() => resolveAuthTokens(config, { TOKEN_A: 'secret-a' }));
    expect(error.message).not.toContain('secret-a');
    expect(JSON.stringify(error.issues)).not.toContain('secret-a');
  });

  it('returns nothing when no tokens are configured', () => {
    expect(resolveAuthTokens(parseConfig({}, { baseDir: '/' }), {})).toEqual([]);
  });
});
