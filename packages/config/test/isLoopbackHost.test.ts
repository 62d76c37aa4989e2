import { describe, expect, it } from 'vitest';
import { isLoopbackHost } from '../src/index.js';

describe('isLoopbackHost', () => {
  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '127.255.255.254',
    'localhost',
    'LOCALHOST',
    '::1',
    '[::1]',
    '0:0:0:0:0:0:0:1',
    '::ffff:127.0.0.1',
  ])('%s is loopback', (host) => {
    expect(isLoopbackHost(host)).toBe(true);
  });

  it.each([
    '0.0.0.0',
    '::',
    '10.0.0.1',
    '128.0.0.1',
    '127.0.0.256',
    '::ffff:10.0.0.1',
    'example.com',
    'localhost.example.com',
    '127.0.0.1.nip.io',
    '',
  ])('%s is not loopback', (host) => {
    expect(isLoopbackHost(host)).toBe(false);
  });
});
