import { describe, expect, it } from 'vitest';
import { allFaults } from '../../faults/index.js';
import { featureFlags } from '../../examples/false-positives/feature-flags.js';
import { ordinalMembers } from '../../examples/false-positives/ordinal-members.js';
import { secretCopier } from '../../examples/false-positives/secret-copier.js';
import { webAppController } from '../../examples/client-node/steadystate.js';
import { realismCheck, realismLaw, type RealismTarget } from '../helpers/fault-laws.js';

/**
 * The realism law over every fault kind (SPEC §3, issue 11): at high intensity, over correct
 * controllers that use the built-in runtime (Pods with claims, created unowned copies in other
 * namespaces), one with controller-runtime's GenerationChanged predicate and a client-node
 * controller over HTTP, every history is one a real control plane
 * produces. `realism-negative.test.ts` shows the law failing on unrealistic fault modules.
 */
const targets: RealismTarget[] = [
  { name: ordinalMembers.name, controllers: ordinalMembers.controllers, options: { ...ordinalMembers.options, maxObjects: 1, maxActions: 2 } },
  { name: secretCopier.name, controllers: secretCopier.controllers, options: { ...secretCopier.options, maxActions: 2 } },
  { name: featureFlags.name, controllers: featureFlags.controllers, options: { ...featureFlags.options, maxActions: 2 } },
  { name: 'client-node webapp (HTTP)', controllers: [webAppController], options: { maxObjects: 1, maxActions: 2 } },
];

for (const fault of allFaults) realismLaw(fault, targets, { runs: 3, seed: 1 });

describe('every fault kind at once', () => {
  it('still produces only realistic histories, and the faults do fire', { timeout: 60_000 }, async () => {
    for (const t of targets) {
      const r = await realismCheck(allFaults, t, { runs: 6, seed: 2 });
      expect(r.failure).toBeUndefined();
      expect(r.streams).toEqual([]);
      expect(r.fired).toBeGreaterThan(0);
    }
  });
});
