import { describe, expect, it } from 'vitest';
import { gatewayConfigReads } from './configReads.js';

// The config is read in one place: the settings functions of the composition root (compose/*Settings.ts,
// gathered by compose/gatewaySettings.ts), and the CLI's flags, which rewrite the config before it is read
// (cli/configFrom.ts). The operator page's redacted "effective config" takes the config whole, reading no
// field (operator/redactedConfig.ts).
const READERS = [/^compose\/[a-z][A-Za-z]*Settings\.ts$/, /^cli\/configFrom\.ts$/];
// Type-checking the gateway's source takes ~5 s alone, several times that beside other test files.
const TYPE_CHECK_TIMEOUT_MS = 120_000;

describe('the config', () => {
  it(
    'is read only by the settings functions: every other module takes the typed settings it uses',
    () => {
      const reads = gatewayConfigReads();
      const stray = reads
        .filter((read) => !READERS.some((reader) => reader.test(read.path)))
        .map((read) => `${read.path}:${read.line}: ${read.text}`);
      expect(stray).toEqual([]);
      // The check sees reads at all (a type it no longer recognizes would find none and pass).
      expect(reads.some((read) => read.path === 'compose/gatewaySettings.ts')).toBe(true);
    },
    TYPE_CHECK_TIMEOUT_MS,
  );
});
