import { TERMINAL_INJECTION_UPSTREAM, waitFor } from '@skillgate/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/testGateway.js';

const HOSTILE = TERMINAL_INJECTION_UPSTREAM;
// The SGR colour sequences pino-pretty writes itself (when colours are on) are the only ESC allowed.
const COLOURS = new RegExp(`${String.fromCharCode(0x1b)}\\[[0-9;]*m`, 'g');

/** Every character of text a terminal would act on, other than the newline that ends each record. */
function controlCharacters(text: string): string[] {
  const found: string[] = [];
  for (const char of text.replace(COLOURS, '')) {
    const code = char.charCodeAt(0);
    const control =
      (code < 0x20 && char !== '\n') ||
      (code >= 0x7f && code <= 0x9f) ||
      code === 0x2028 ||
      code === 0x2029 ||
      (code >= 0x202a && code <= 0x202e) ||
      (code >= 0x2066 && code <= 0x2069);
    if (control) found.push(`U+${code.toString(16).padStart(4, '0')}`);
  }
  return found;
}

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

describe('terminal injection through logs: an upstream stderr line and clashing tool names', () => {
  for (const format of ['pretty', 'json'] as const) {
    it(`writes no raw control character in the ${format} format, and still shows what was sent`, async () => {
      const lines: string[] = [];
      gw = await startTestGateway(
        {
          logging: { format },
          upstreams: [{ id: 'hostile', command: [process.execPath, HOSTILE] }],
        },
        process.env,
        lines,
      );
      await waitFor(() => lines.join('').includes('starting'), { what: 'the upstream stderr line' });
      await waitFor(() => lines.join('').includes('TOOL_NAME_CLASH'), {
        what: 'the clashing tool names problem',
      });
      const output = lines.join('');
      expect(controlCharacters(output)).toEqual([]);
      // The payload stays readable as escapes, so an operator sees what the upstream tried.
      expect(output).toContain('\\u001b]52;c;ZWNobyBwd25lZA==');
      expect(output).toContain('\\u009b31m');
      expect(output).toContain('deploy\\u009b2J\\u001b[H');
      // Another tenant is served meanwhile.
      expect((await fetch(`${gw.base}/healthz`)).status).toBe(200);
    });
  }
});
