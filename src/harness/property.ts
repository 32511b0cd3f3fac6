import type { JsonObject, StoredObject } from '../store/object.js';
import type { WriteRecord } from '../store/store.js';
import type { TraceEntry } from '../sim/trace.js';
import type { Scenario } from './scenario.js';
import type { WorldView } from './world.js';

/** One sample of a probe. @public */
export interface ProbeSample {
  t: number;
  ok: boolean;
  /** Why not, in words (when the predicate returned a string). */
  detail?: string;
}

/**
 * A predicate the harness evaluates during a run: every `everyMs` of virtual time in the given
 * phases, or after every store write (`everyMs: 'write'`). Returning a string means "false,
 * because …".
 * @public
 */
export interface Probe {
  name: string;
  everyMs: number | 'write';
  phases: ('faults' | 'settle' | 'tail')[];
  fn: (view: WorldView) => boolean | string;
}

/** A downstream request as recorded (see the downstream module). @public */
export interface RecordedRequest {
  t: number;
  tEnd: number;
  actor: string;
  method: string;
  url: string;
  endpoint: string;
  status: number;
  outcome: string;
  mutating: boolean;
  fault?: string;
  applied?: boolean;
}

/** Everything a property may judge: the recorded run, plain data. @public */
export interface RunRecord {
  scenario: Scenario;
  controllers: string[];
  /** Primary kinds of the controllers. */
  primaryKinds: string[];
  trace: TraceEntry[];
  writes: WriteRecord[];
  requests: RecordedRequest[];
  /** Objects at the end of the settle phase. */
  settledObjects: StoredObject[];
  /** Objects at the end of the run. */
  finalObjects: StoredObject[];
  probes: Record<string, ProbeSample[]>;
  timing: {
    faultWindowEnd: number;
    /** Last user action (ms). */
    lastActionAt: number;
    settleStart: number;
    /** Start of the quiet tail: extra reconciles and re-applied specs happen here. */
    tailStart: number;
    end: number;
  };
  /** Tasks given up on because they waited outside the simulation. */
  blocked: { label: string; at: number; startedAt: number }[];
  /** State of fake downstream services at the end. */
  downstream: unknown;
  hash: string;
}

/** A property's verdict. @public */
export type Verdict =
  | { ok: true; stats?: JsonObject }
  | {
      ok: false;
      /** One line. */
      summary: string;
      /** "Let: … Then: …", in words a controller author acts on. */
      explanation: string;
      evidence: JsonObject;
    };

/** A configured property, ready to judge runs. @public */
export interface Property {
  readonly name: string;
  readonly description: string;
  readonly options: JsonObject;
  /** Needs the fault-free twin run of the same scenario. */
  readonly needsTwin: boolean;
  probes(): Probe[];
  judge(run: RunRecord, twin: RunRecord | undefined): Verdict;
}

/** Definition accepted by {@link defineProperty}. @public */
export interface PropertyDefinition<O extends object> {
  name: string;
  description: string;
  defaults: O;
  needsTwin?: boolean;
  probes?: (options: O) => Probe[];
  judge: (run: RunRecord, options: O, twin: RunRecord | undefined) => Verdict;
}

/** A property factory: `convergence({ stableFor: 3 })`. @public */
export type PropertyFactory<O extends object> = ((options?: Partial<O>) => Property) & { readonly propertyName: string; readonly description: string };

/** Defines a property (an oracle): a pure judge of a recorded run. @public */
export function defineProperty<O extends object>(def: PropertyDefinition<O>): PropertyFactory<O> {
  if (!/^[a-z][a-z0-9-]*$/.test(def.name)) throw new TypeError(`steadystate.defineProperty: name must be kebab-case (the file name), got ${JSON.stringify(def.name)}`);
  const factory = (options?: Partial<O>): Property => {
    const resolved = { ...def.defaults, ...(options ?? {}) } as O;
    return {
      name: def.name,
      description: def.description,
      options: toJson(resolved),
      needsTwin: def.needsTwin ?? false,
      probes: () => (def.probes ? def.probes(resolved) : []),
      judge: (run, twin) => def.judge(run, resolved, twin),
    };
  };
  return Object.assign(factory, { propertyName: def.name, description: def.description });
}

function toJson(o: object): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(o)) {
    if (typeof v === 'function') out[k] = '<function>';
    else if (v !== undefined) out[k] = v as JsonObject[string];
  }
  return out;
}
