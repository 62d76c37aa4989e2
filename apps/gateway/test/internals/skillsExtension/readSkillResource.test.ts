import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { ProtocolError } from '@modelcontextprotocol/server';
import type { SkillFile } from '@skillgate/skills';
import { describe, expect, it } from 'vitest';
import { readSkillResource } from '../../../src/skillsExtension/readSkillResource.js';

// Regression test named after issue 17 item 11, "a file that shrinks during a read": it was refused as
// "too_large: <its size> bytes, over the <cap>-byte limit" although it was well within the cap.

describe('readSkillResource', () => {
  it('a file that shrinks during a read is refused as changed, not as too large', async () => {
    // sysfs reports each attribute as a 4096-byte regular file and reads it shorter: to a reader, a file
    // that shrank between the open and the read, without a race to win.
    const path = '/sys/kernel/mm/transparent_hugepage/enabled';
    const size = statSync(path).size;
    const content = readFileSync(path);
    expect(content.length).toBeLessThan(size);
    const file: SkillFile = {
      path: 'references/enabled.txt',
      absolutePath: path,
      size,
      isScript: false,
      isExecutable: false,
      mimeType: 'text/plain',
      isBinary: false,
      digest: `sha256:${createHash('sha256').update(content).digest('hex')}`,
    };
    const uri = 'skill://probe/references/enabled.txt';
    const error = await readSkillResource(uri, file, {
      maxTextBytes: 262_144,
      maxBinaryBytes: 262_144,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).data).toMatchObject({ uri, reason: 'RESOURCE_CHANGED' });
    expect((error as ProtocolError).message).not.toContain('limit');
  });
});
