import { simulate, type ControllerDefinition, type Scenario } from '../../src/index.js';
import { edgeTriggered } from './edge-triggered.js';
import { levelTriggered } from './level-triggered.js';
import { REPLICAS_KIND, TICK_MS } from './replicas.js';

/** Parameters of the reference experiment (SPEC §9). */
export interface ExperimentOptions {
  trials?: number;
  target?: number;
  ticks?: number;
  lossRate?: number;
  /** First seed; trial i uses seed + i. */
  seed?: number;
}

export interface ExperimentRow {
  controller: string;
  trials: number;
  converged: number;
  /** Mean virtual ticks from creation to convergence, over converged trials. */
  meanTicks: number;
  /** Mean controller writes per trial. */
  meanActions: number;
}

/** The scenario of one trial: create the object at t=0, lose `lossRate` of notifications for `ticks`. */
export function experimentScenario(controller: string, seed: number, o: Required<ExperimentOptions>): Scenario {
  return {
    seed,
    controllers: [{ name: controller }],
    initialObjects: [],
    workload: [{ at: 0, type: 'create', object: { kind: REPLICAS_KIND, metadata: { name: 'web', namespace: 'default' }, spec: { replicas: o.target }, status: { replicas: 0 } } }],
    faults: { events: [], background: [{ kind: 'event-loss', rate: o.lossRate }] },
    options: { faultWindowMs: o.ticks * TICK_MS, settleMs: 0, relistOnSettle: false },
  };
}

/** Runs one controller through `trials` scenarios of the full stack. */
export async function runTrials(def: ControllerDefinition, options: ExperimentOptions = {}): Promise<ExperimentRow> {
  const o: Required<ExperimentOptions> = { trials: 2000, target: 3, ticks: 60, lossRate: 0.3, seed: 1, ...options };
  let converged = 0;
  let ticks = 0;
  let actions = 0;
  for (let i = 0; i < o.trials; i++) {
    const { run } = await simulate(experimentScenario(def.name, o.seed + i, o), { controllers: [def], traceReads: false, tailMs: 0 });
    const rs = run.finalObjects.find((x) => x.kind === REPLICAS_KIND);
    const status = rs?.status as { replicas?: number } | undefined;
    const writes = run.writes.filter((w) => w.actor.startsWith('controller:'));
    actions += writes.length;
    if (status?.replicas === o.target) {
      converged++;
      const last = writes[writes.length - 1];
      ticks += last ? last.t / TICK_MS : 0;
    }
  }
  return { controller: def.name, trials: o.trials, converged, meanTicks: converged ? ticks / converged : 0, meanActions: actions / o.trials };
}

/** The two lines of SPEC §9. */
export function formatRow(r: ExperimentRow): string {
  const pct = ((100 * r.converged) / r.trials).toFixed(1);
  return `${r.controller}: converged ${r.converged}/${r.trials} (${pct}%), mean ${r.meanTicks.toFixed(2)} ticks, mean ${r.meanActions.toFixed(2)} actions`;
}

/** Runs both controllers. */
export async function runReferenceExperiment(options: ExperimentOptions = {}): Promise<ExperimentRow[]> {
  return [await runTrials(levelTriggered, options), await runTrials(edgeTriggered, options)];
}
