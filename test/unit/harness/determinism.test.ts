import { describe, expect, it } from 'vitest';
import { checkDeterminism } from '../../../src/harness/determinism.js';
import { fakeRun } from './helpers.js';

describe('checkDeterminism', () => {
  const first = fakeRun({ hash: 'aaaa', trace: [{ t: 0, type: 'run:start' }, { t: 5, type: 'log', message: 'x=1' }] });

  it('passes when the re-run has the same hash', async () => {
    const r = await checkDeterminism(first, async () => ({ ...first }));
    expect(r).toEqual({ ok: true, hashes: ['aaaa', 'aaaa'] });
  });

  it('reports the first diverging entry and names the likely cause the probe saw', async () => {
    let restored = false;
    const probe = {
      start: () => () => {
        restored = true;
        return { 'Math.random()': 3, 'Date.now()': 0 };
      },
    };
    const r = await checkDeterminism(first, async () => fakeRun({ hash: 'bbbb', trace: [{ t: 0, type: 'run:start' }, { t: 5, type: 'log', message: 'x=2' }] }), probe);
    expect(restored).toBe(true);
    expect(r.ok).toBe(false);
    expect(r.hashes).toEqual(['aaaa', 'bbbb']);
    expect(r.divergence).toEqual({ index: 1, first: first.trace[1], second: { t: 5, type: 'log', message: 'x=2' } });
    expect(r.explanation).toMatch(/entry #1 at t=5 ms/);
    expect(r.explanation).toMatch(/Math\.random\(\) was called 3 times/);
    expect(r.explanation).not.toMatch(/Date\.now\(\) was called/);
  });

  it('lists the usual suspects when the probe saw nothing, and restores the probe even when the re-run throws', async () => {
    const r = await checkDeterminism(first, async () => fakeRun({ hash: 'cccc', trace: [{ t: 0, type: 'run:start' }] }));
    expect(r.explanation).toMatch(/Math\.random or crypto randomness, Date\.now/);
    expect(r.divergence!.second).toBeNull();
    let restored = false;
    await expect(checkDeterminism(first, async () => Promise.reject(new Error('boom')), { start: () => () => ((restored = true), {}) })).rejects.toThrow('boom');
    expect(restored).toBe(true);
  });
});
