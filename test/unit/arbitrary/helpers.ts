import fc from 'fast-check';
import { defineFault, type FaultModule } from '../../../src/harness/fault.js';
import type { ResolvedObjectTemplate } from '../../../src/arbitrary/workload.js';

/** A resolved template for tests: ReplicaSet-like objects with a replicas spec. */
export function template(overrides: Partial<ResolvedObjectTemplate> = {}): ResolvedObjectTemplate {
  return {
    kind: 'ReplicaSet',
    namespace: 'default',
    name: 'rs',
    names: undefined,
    namespaces: undefined,
    spec: fc.record({ replicas: fc.integer({ min: 1, max: 5 }) }),
    status: { replicas: 0 },
    labels: {},
    annotations: {},
    finalizers: [],
    removableFinalizers: [],
    ...overrides,
  };
}

/** A do-nothing fault module with nth events and a background rate, for generator tests. */
export function stubFault(kind: string): FaultModule {
  return defineFault({
    kind,
    models: 'nothing (test stub)',
    survivedBy: 'anything',
    actsOn: 'notify',
    arbitrary: (ctx) => fc.array(fc.record({ kind: fc.constant(kind), nth: fc.nat({ max: ctx.maxNth }) }), { maxLength: 3 }),
    backgroundArbitrary: () => fc.record({ kind: fc.constant(kind), rate: fc.integer({ min: 0, max: 50 }).map((p) => p / 100) }),
    install: () => () => {},
  });
}

/** The smallest value fast-check shrinks to when every value fails. */
export function minimal<T>(arb: fc.Arbitrary<T>, fails: (v: T) => boolean = () => true, seed = 1): T {
  const details = fc.check(fc.property(arb, (v) => !fails(v)), { seed, numRuns: 200 });
  if (!details.failed || !details.counterexample) throw new Error('expected a counterexample');
  return details.counterexample[0];
}
