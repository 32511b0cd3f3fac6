import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rememberWritten, restoreWritten } from '../../src/cli/written-files.js';

/**
 * Red team F6 (stop 43): a process the checked code started after the check ended its processes
 * (a timer the code left in the CLI's thread) may rewrite the reports before the CLI exits. At
 * exit, once the last such process is ended, the CLI puts back what it wrote.
 */
describe('the files a check wrote are put back at exit as it wrote them', () => {
  it('a rewritten shard result and a deleted reproduction come back byte for byte; an untouched file is left alone', () => {
    const dir = mkdtempSync(join(tmpdir(), 'steadystate-written-'));
    try {
      const shard = join(dir, 's1', 'shard-result.json');
      const repro = join(dir, 's1', 'web-no-hot-loop-7.json');
      const junit = join(dir, 's1', 'junit.xml');
      mkdirSync(join(dir, 's1'));
      writeFileSync(shard, '{"result":{"ok":false}}\n');
      writeFileSync(repro, '{"property":"no-hot-loop"}\n');
      writeFileSync(junit, '<testsuites/>\n');
      rememberWritten([shard, repro, junit]);
      // the forger: a pass, and the failure's reproduction gone
      writeFileSync(shard, '{"result":{"ok":true}}\n');
      rmSync(repro);
      expect(restoreWritten().sort()).toEqual([repro, shard].sort());
      expect(readFileSync(shard, 'utf8')).toBe('{"result":{"ok":false}}\n');
      expect(existsSync(repro)).toBe(true);
      expect(readFileSync(repro, 'utf8')).toBe('{"property":"no-hot-loop"}\n');
      expect(restoreWritten()).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
