import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createKeyRing, decodeKey } from '../src/keys/keyRing.js';
import { defaultCredentialsFile } from '../src/store/defaultCredentialsFile.js';
import { createFileStore } from '../src/store/fileStore.js';
import { createVault } from '../src/store/vault.js';
import { newKey } from './fixtures/keys.js';

const tempFile = () => join(mkdtempSync(join(tmpdir(), 'sg-cred-')), 'state', 'credentials.json');

describe('the file store', () => {
  it('writes one 0600 file in a 0700 folder and leaves no temp file behind', async () => {
    const path = tempFile();
    const store = createFileStore({ path });
    await store.put('token:alice', 'github', 'v1.k1.sealed');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(path, '..')).mode & 0o777).toBe(0o700);
    expect(readdirSync(join(path, '..'))).toEqual(['credentials.json']);
  });

  it('loses no write of many in flight, and a new instance (a restart) reads them all', async () => {
    const path = tempFile();
    const store = createFileStore({ path });
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        store.put(`token:p${i}`, i % 2 === 0 ? 'github' : 'acme', `s${i}`),
      ),
    );
    await store.close();
    const restarted = createFileStore({ path });
    expect((await restarted.list()).length).toBe(40);
    expect(await restarted.counts()).toEqual({ github: 20, acme: 20 });
    expect(await restarted.get('token:p7', 'acme')).toBe('s7');
    expect(await restarted.delete('token:p7', 'acme')).toBe(true);
    expect(await restarted.delete('token:p7', 'acme')).toBe(false);
    expect((await restarted.list('token:p7')).length).toBe(0);
  });

  it('sees a change another process made to the file (skillgate connections --revoke)', async () => {
    const path = tempFile();
    const gateway = createFileStore({ path });
    await gateway.put('token:alice', 'github', 's1');
    expect(await gateway.get('token:alice', 'github')).toBe('s1');
    await createFileStore({ path }).delete('token:alice', 'github');
    expect(await gateway.get('token:alice', 'github')).toBeUndefined();
  });

  it('says STORE_UNAVAILABLE for a file that is not a credentials file', async () => {
    const path = tempFile();
    await createFileStore({ path }).put('a', 'b', 'c');
    writeFileSync(path, 'not json');
    await expect(createFileStore({ path }).get('a', 'b')).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
    });
  });

  it('holds sealed records only: the token is nowhere in the file', async () => {
    const path = tempFile();
    const store = createFileStore({ path });
    const vault = createVault(store, createKeyRing([decodeKey('k1', newKey())]), () => {});
    const token = `gho_${'x'.repeat(36)}`;
    await vault.put('token:alice', 'github', {
      kind: 'oauth',
      accessToken: token,
      refreshToken: 'rt_secret_value',
      connectedAt: 1,
    });
    const bytes = readFileSync(path);
    expect(bytes.includes(token)).toBe(false);
    expect(bytes.includes('rt_secret_value')).toBe(false);
    expect(await vault.get('token:alice', 'github')).toMatchObject({ accessToken: token });
  });

  it('defaults to $XDG_STATE_HOME/skillgate, else ~/.local/state/skillgate', () => {
    expect(defaultCredentialsFile({ XDG_STATE_HOME: '/xdg', HOME: '/home/a' })).toBe(
      '/xdg/skillgate/credentials.json',
    );
    expect(defaultCredentialsFile({ HOME: '/home/a' })).toBe(
      '/home/a/.local/state/skillgate/credentials.json',
    );
    expect(defaultCredentialsFile({ XDG_STATE_HOME: 'relative', HOME: '/home/a' })).toBe(
      '/home/a/.local/state/skillgate/credentials.json',
    );
  });
});

describe('the vault', () => {
  it('treats a copied, foreign-key or tampered record as absent, reports it once, and re-seals stale ones', async () => {
    const path = tempFile();
    const store = createFileStore({ path });
    const k1 = decodeKey('k1', newKey());
    const reports: string[] = [];
    const old = createVault(store, createKeyRing([k1]), ({ principal, provider }) =>
      reports.push(`${principal}/${provider}`),
    );
    await old.put('token:alice', 'github', { kind: 'secret', value: 'alice-secret', connectedAt: 1 });
    // Copied under another principal: it does not open there.
    await store.put('token:mallory', 'github', (await store.get('token:alice', 'github')) ?? '');
    expect(await old.get('token:mallory', 'github')).toBeUndefined();
    expect(await old.get('token:mallory', 'github')).toBeUndefined();
    expect(reports).toEqual(['token:mallory/github']);

    // Rotated: the new first key opens the old record and seals it again under itself.
    const k2 = decodeKey('k2', newKey());
    const rotated = createVault(store, createKeyRing([k2, k1]), () => {});
    expect(await rotated.get('token:alice', 'github')).toMatchObject({ value: 'alice-secret' });
    expect((await store.get('token:alice', 'github'))?.split('.')[1]).toBe('k2');
    // ... so that it still opens once k1 is removed.
    expect(
      await createVault(store, createKeyRing([k2]), () => {}).get('token:alice', 'github'),
    ).toMatchObject({
      value: 'alice-secret',
    });
    // A removed key: its records are absent, the store still works.
    const removedReports: string[] = [];
    const without = createVault(store, createKeyRing([decodeKey('k3', newKey())]), (e) =>
      removedReports.push(e.provider),
    );
    expect(await without.get('token:alice', 'github')).toBeUndefined();
    expect(removedReports).toEqual(['github']);
  });
});
