import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { sandboxPid } from '../src/sandbox/sandboxPid.js';

describe('sandboxPid', () => {
  it("reads the child pid from bwrap's --info-fd JSON, even split across chunks", async () => {
    const info = new PassThrough();
    const pid = sandboxPid(info);
    info.write('{\n    "child-p');
    info.write('id": 4242,\n    "cgroup-namespace": 1\n}\n');
    expect(await pid).toBe(4242);
  });

  it('gives undefined when the stream ends without one (bwrap failed before forking)', async () => {
    const info = new PassThrough();
    const pid = sandboxPid(info);
    info.end('');
    expect(await pid).toBeUndefined();
  });
});
