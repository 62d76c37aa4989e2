import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createCredentials } from '../src/index.js';
import { settingsWith, testEnv } from './fixtures/setup.js';

const acme = { id: 'acme', kind: 'secret', label: 'ACME API key' } as const;

describe('a secret provider', () => {
  const settings = () =>
    settingsWith({
      providers: [acme],
      upstreams: [{ upstream: 'acme', kind: 'provider', provider: 'acme', header: 'X-API-Key' }],
      scripts: [{ skills: ['acme-*'], env: 'ACME_KEY', provider: 'acme' }],
    });

  it("takes the principal's secret on its flow and hands it to the upstream header and the scripts", async () => {
    const s = settings();
    const credentials = createCredentials({ settings: s, env: testEnv() });
    expect(await credentials.scriptEnv('acme-report', 'token:alice')).toEqual({
      kind: 'connect',
      provider: 'acme',
    });
    expect(await credentials.scriptEnv('other', 'token:alice')).toEqual({ kind: 'env', env: {} });
    const link = await credentials.startFlow('token:alice', 'acme');
    expect(await credentials.flow(link.id)).toMatchObject({
      kind: 'secret',
      label: 'ACME API key',
      principal: 'token:alice',
    });
    await expect(credentials.storeSecret(link.id, 'token:bob', 'bobs-key')).rejects.toMatchObject({
      code: 'FLOW_FORBIDDEN',
    });
    await expect(credentials.storeSecret(link.id, 'token:alice', 'two\nlines')).rejects.toMatchObject({
      code: 'FLOW_INVALID',
    });
    await credentials.storeSecret(link.id, 'token:alice', '  acme-secret-123  ');
    await expect(credentials.storeSecret(link.id, 'token:alice', 'again')).rejects.toMatchObject({
      code: 'FLOW_INVALID',
    });

    // A custom header gets the raw value, no Bearer.
    expect(await credentials.headersFor('acme', 'token:alice')).toEqual({
      kind: 'headers',
      headers: { 'X-API-Key': 'acme-secret-123' },
    });
    expect(await credentials.scriptEnv('acme-report', 'token:alice')).toEqual({
      kind: 'env',
      env: { ACME_KEY: 'acme-secret-123' },
    });
    expect(await credentials.headersFor('acme', 'token:bob')).toEqual({ kind: 'connect', provider: 'acme' });
    expect(readFileSync(s.file ?? '').includes('acme-secret-123')).toBe(false);
    expect(await credentials.connections()).toEqual([
      { principal: 'token:alice', provider: 'acme', state: 'connected' },
    ]);
  });

  it('lists an upstream for discovery through the first connected principal, or static headers', async () => {
    const credentials = createCredentials({
      settings: settingsWith({
        providers: [acme],
        upstreams: [
          { upstream: 'acme', kind: 'provider', provider: 'acme', header: 'X-API-Key' },
          {
            upstream: 'listed',
            kind: 'provider',
            provider: 'acme',
            discovery: { kind: 'headers', headersFromEnv: { Authorization: 'LIST_AUTH' } },
          },
        ],
      }),
      env: { ...testEnv(), LIST_AUTH: 'Bearer list-only' },
    });
    expect(await credentials.discoveryHeaders('acme')).toBeUndefined();
    const link = await credentials.startFlow('token:alice', 'acme');
    await credentials.storeSecret(link.id, 'token:alice', 'k');
    expect(await credentials.discoveryHeaders('acme')).toEqual({ 'X-API-Key': 'k' });
    expect(await credentials.discoveryHeaders('listed')).toEqual({ Authorization: 'Bearer list-only' });
    expect(await credentials.discoveryHeaders('unknown')).toBeUndefined();
  });
});
