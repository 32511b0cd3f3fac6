import { faultPlan } from './fault-plan.js';
import { scenario } from './scenario.js';
import { swarm } from './swarm.js';
import { workload } from './workload.js';

/**
 * The scenario arbitraries, as one namespace object (fast-check style):
 * `arbitraries.scenario({...})`, `arbitraries.workload({...})`, `arbitraries.faultPlan({...})`,
 * `arbitraries.swarm([...])`.
 * @public
 */
export const arbitraries = { scenario, workload, faultPlan, swarm } as const;
