import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from '../e2e/cli-helpers.js';

/**
 * Issue 17 item 15: a world with very many objects of one kind. Spreading a list into a call
 * (push(...list)) overflows the stack past ~10^5 elements, so simulate threw RangeError at about
 * 130,000 objects and the convergence probe, catching it, reported a converged world as not
 * converged. The fixture runs with a tenth of node's stack, where the same overflow happens at
 * 20,000 objects (1,000,000 objects at the default stack: bench/big-world.ts).
 */
describe('a world of many objects of one kind', () => {
  it('simulates 20,000 objects on a small stack: no RangeError, converged, within the step budget', () => {
    const out = execFileSync(process.execPath, ['--stack-size=100', '--import', 'tsx', join(root, 'test/robustness/fixtures/big-world.ts'), '20000'], { cwd: root, encoding: 'utf8' });
    expect(JSON.parse(out.trim().split('\n').pop()!)).toEqual({ ok: true, objects: 20_000, exhausted: false, converged: true });
  }, 60_000);
});
