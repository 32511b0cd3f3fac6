import { describe, expect, it } from 'vitest';
import { check } from '../../src/check.js';
import { defineProperty, judgesWithoutUserCode } from '../../src/harness/property.js';
import { convergence, specStatusOwnership } from '../../properties/index.js';
import { buggyDatabase } from '../../examples/bug-zoo/spec-writer/buggy.js';
import { database } from '../../examples/bug-zoo/spec-writer/correct.js';
import { specWriter } from '../../examples/bug-zoo/spec-writer/scenario.js';

/**
 * Red team, stop 42 (F13): properties share one run record, and a custom property listed before
 * the built-ins could splice the controller's writes out of it, so spec-status-ownership judged
 * a run without the spec write and the check passed. Whatever a property the user wrote does, the built-ins
 * judge the run as it happened.
 */
const base = { objects: specWriter.options.objects!, runs: 1, seed: 7, faults: [], shrink: false as const };

const eraser = defineProperty({
  name: 'erases-writes',
  description: 'hides the controller writes from the properties judged after it',
  defaults: {},
  judge: (run) => {
    try {
      run.writes.splice(0, run.writes.length);
      run.trace.splice(0, run.trace.length);
    } catch {
      // the record is read-only: the tampering is what fails, not the check
    }
    return { ok: true };
  },
});

const sorter = defineProperty({
  name: 'sorts-in-place',
  description: 'an honest property that sorts the trace in place',
  defaults: {},
  judge: (run) => {
    run.trace.sort((a, b) => b.t - a.t);
    return { ok: true };
  },
});

describe('a property the user wrote', () => {
  it('cannot hide a spec write from the built-in properties judged after it', async () => {
    const r = await check(buggyDatabase, { ...base, properties: [eraser(), specStatusOwnership()] });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.property).toBe('spec-status-ownership');
      expect(r.run.writes.length).toBeGreaterThan(0);
    }
  });

  it('that edits the run in place is told why it failed and how to fix it', async () => {
    const r = await check(database, { ...base, properties: [sorter(), specStatusOwnership()] });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.property).toBe('sorts-in-place');
      expect(r.explanation).toMatch(/read-only while properties judge it.*\[\.\.\.run\.trace\]\.sort/);
    }
  });

  it('does not change how a correct controller passes', async () => {
    const r = await check(database, { ...base, properties: [eraser(), specStatusOwnership()] });
    expect(r.ok).toBe(true);
  });

  it('includes a predicate given to a built-in: only built-ins without functions in their options judge unsealed records', () => {
    expect(judgesWithoutUserCode(convergence())).toBe(true);
    expect(judgesWithoutUserCode(convergence({ converged: () => true }))).toBe(false);
    expect(judgesWithoutUserCode(eraser())).toBe(false);
  });
});
