import { describe, expect, it } from 'vitest';
import { gatewaySourceLines } from './helpers/sourceLines.js';

// The composition root (createGateway.ts and the config -> settings translation in compose/) and the CLI.
const READERS = ['createGateway.ts', 'compose/', 'cli.ts', 'cli/'];

// Reading the config: its type or a section type (helpers such as isLoopbackHost or the LogLevel union are
// plain values), or a `config.<section>.` access.
const READS: readonly RegExp[] = [
  /\bSkillgateConfig\b/,
  /\b[A-Z]\w*Config\b[^;]*from '@skillgate\/config'/,
  /\bconfig\.[a-z_]+\b/,
];

describe('typed options, no runtime bag', () => {
  it('lets only the composition root and the CLI read the config: every other module gets plain typed options', async () => {
    const isReader = (path: string) =>
      READERS.some((reader) => path === reader || (reader.endsWith('/') && path.startsWith(reader)));
    const leaks = (await gatewaySourceLines())
      .filter((line) => !isReader(line.path) && READS.some((pattern) => pattern.test(line.text)))
      .map((line) => `${line.path}:${line.number}: ${line.text.trim()}`);
    expect(leaks).toEqual([]);
  });
});
