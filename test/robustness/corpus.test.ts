import { describe, expect, it } from 'vitest';
import { check } from '../../src/check.js';
import { duplication } from '../../faults/index.js';
import { edgeTriggered } from '../../examples/replicas/edge-triggered.js';
import { scenario } from '../helpers/fixtures.js';
import { fixture, runCli, tempDir } from '../e2e/cli-helpers.js';

/** Issue 17 item 12: a corpus entry that does not fit the current options is left out, never a crash. */
describe('corpus entries saved with other options', () => {
  it('the CLI skips an entry that needs a fault kind this check does not enable, with a one-line note, and runs the rest', async () => {
    const dir = tempDir();
    const saved = await runCli(['check', fixture('edge.ts'), '--faults', 'event-loss', '--seed', '1', '--runs', '20'], { cwd: dir });
    expect(saved.code).toBe(1);
    const r = await runCli(['check', fixture('edge.ts'), '--faults', 'duplication', '--seed', '1', '--runs', '5'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const notes = r.stderr.split('\n').filter((l) => l.includes('skipped corpus entry'));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/^steadystate check: skipped corpus entry reports\/corpus\/edge-triggered\/convergence-[0-9a-f]{8}\.json: it uses fault kind "event-loss", which this check does not enable \(it enables "duplication"\)\.$/);
    expect(r.stdout).toMatch(/^PASS edge-triggered: 5 runs/);
  });

  it('check() refuses such a scenario up front, naming it, instead of failing in the middle of the check', async () => {
    const s = scenario({ controllers: [{ name: 'edge-triggered' }], faults: { events: [{ kind: 'event-loss', nth: 1 }], background: [] } });
    await expect(check(edgeTriggered, { faults: [duplication], runs: 1, corpus: { scenarios: [s] } })).rejects.toThrow(/options\.corpus\.scenarios\[0\] cannot run in this check: it uses fault kind "event-loss", which this check does not enable \(it enables "duplication"\)/);
    const other = scenario({ controllers: [{ name: 'someone-else' }] });
    await expect(check(edgeTriggered, { faults: [duplication], runs: 1, corpus: { scenarios: [other] } })).rejects.toThrow(/names controller "someone-else", which this check does not run/);
  });
});
