import { describe, expect, it } from 'vitest';
import { check } from '../../src/check.js';
import { defineProperty } from '../../src/harness/property.js';
import { registerBuiltInProperties } from '../../src/harness/property.js';
import { defaultProperties, noHotLoop, properties } from '../../properties/index.js';
import { edgeTriggered } from '../../examples/replicas/edge-triggered.js';
import { replicaObjects } from '../e2e/check-fixtures.js';

/**
 * Red team, stop 42 (F7): checkOptions.properties of always-true properties named like the
 * built-ins gave a PASS line word for word a real default check's. A property named like a
 * built-in must be the built-in.
 */
describe('a property named like a built-in', () => {
  it('is refused when no built-in factory made it, naming it and the fix', async () => {
    const lookAlike = defineProperty({ name: 'no-hot-loop', description: 'always holds', defaults: {}, judge: () => ({ ok: true }) })();
    await expect(check(edgeTriggered, { objects: replicaObjects, runs: 1, seed: 1, properties: [lookAlike] })).rejects.toThrow(/options\.properties\[0\] is named "no-hot-loop" but is not steadystate's no-hot-loop: .*properties\.noHotLoop\(\)/);
  });

  it("accepts the built-ins however they are made (factory, catalogue, defaults) and a user's property with its own name", async () => {
    const mine = defineProperty({ name: 'my-invariant', description: 'holds', defaults: {}, judge: () => ({ ok: true }) })();
    const r = await check(edgeTriggered, { objects: replicaObjects, runs: 1, seed: 1, faults: [], properties: [noHotLoop({ maxWrites: 100 }), properties.convergence(), defaultProperties()[0]!, mine] });
    expect(r.ok).toBe(true);
  });

  it('cannot be made a built-in after steadystate registered its own', () => {
    expect(() => registerBuiltInProperties([defineProperty({ name: 'convergence', description: '', defaults: {}, judge: () => ({ ok: true }) })])).toThrow(/registered once/);
  });
});
