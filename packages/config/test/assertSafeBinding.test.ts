import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { assertSafeBinding, ConfigError, parseConfig, type ResolvedToken } from '../src/index.js';

const token: ResolvedToken = { name: 'a', sha256: createHash('sha256').update('x').digest(), skills: ['*'] };
const config = (input: unknown) => parseConfig(input, { baseDir: '/' });

describe('assertSafeBinding', () => {
  it('refuses a non-loopback host without tokens, naming auth.allow_anonymous', () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.10', 'gateway.internal']) {
      let error: unknown;
      try {
        assertSafeBinding(config({ server: { host } }), []);
      } catch (e) {
        error = e;
      }
      expect(error, host).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).code).toBe('CONFIG_INVALID');
      expect((error as ConfigError).issues.map((i) => i.path)).toEqual(['auth.allow_anonymous']);
    }
  });

  it('allows it with a token or with allow_anonymous', () => {
    expect(() => assertSafeBinding(config({ server: { host: '0.0.0.0' } }), [token])).not.toThrow();
    const anonymous = config({ server: { host: '0.0.0.0' }, auth: { allow_anonymous: true } });
    expect(() => assertSafeBinding(anonymous, [])).not.toThrow();
  });

  it('always allows loopback, the default', () => {
    expect(() => assertSafeBinding(config({}), [])).not.toThrow();
    expect(() => assertSafeBinding(config({ server: { host: '::1' } }), [])).not.toThrow();
    expect(() => assertSafeBinding(config({ server: { host: 'localhost' } }), [])).not.toThrow();
  });
});
