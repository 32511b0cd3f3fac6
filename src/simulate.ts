import { defaultEnvironment, defaultFaults, withDefaultEnvironment } from './defaults.js';
import { ScenarioError, simulate as simulateWith, type SimulateOptions, type SimulationResult } from './harness/simulate.js';
import { scenarioSchema, type Scenario } from './harness/scenario.js';
import { schemaProblem } from './harness/schema-problem.js';
import { wallClock } from './wall-clock.js';
import type { FaultModule } from './harness/fault.js';

/**
 * Runs one scenario with the built-in fault catalogue and the built-in environment actors
 * (plus any fault modules and actors you pass; yours win on a name clash).
 * @example
 * ```ts
 * const { run } = await simulate(scenario, { controllers: [myController] });
 * console.log(run.hash);
 * ```
 * @public
 */
export async function simulate(scenario: Scenario, options: SimulateOptions): Promise<SimulationResult> {
  // a scenario is user data (often read from a file): validate it whole, naming the JSON path
  validateScenario(scenario);
  // no faults or actors of the caller's: the built-in lists themselves (only read), not a copy per run
  const extra = options.faults ?? [];
  let faults: readonly FaultModule[];
  if (extra.length === 0) faults = defaultFaults();
  else {
    const kinds = new Set(extra.map((f) => f.kind));
    faults = [...extra, ...defaultFaults().filter((f) => !kinds.has(f.kind))];
  }
  return await simulateWith(scenario, {
    ...options,
    faults,
    environment: options.environment === undefined || options.environment.length === 0 ? defaultEnvironment() : withDefaultEnvironment(options.environment),
    wallClock: options.wallClock ?? wallClock,
  });
}

/**
 * Scenarios the schema accepted, as their JSON text with the seed left out ({@link shapeOf}):
 * a loop of simulations over seeds (the reference experiment's 2 × 2,000 trials) validates its
 * scenario once, then only each seed. Bounded: emptied when full.
 */
const validShapes = new Set<string>();
const MAX_SHAPES = 64;
/** Longer texts (big worlds) are not kept: the schema validates those every time. */
const MAX_SHAPE_CHARS = 50_000;
const seedSchema = scenarioSchema.shape.seed;

/**
 * Whether the schema accepts `seed`: a safe integer (zod 4's `.int()`) is accepted without the
 * schema's parse (about 5% of the fixed cost of a small simulation); anything else is the
 * schema's to judge.
 */
function seedAccepted(seed: unknown): boolean {
  return (typeof seed === 'number' && Number.isSafeInteger(seed)) || seedSchema.safeParse(seed).success;
}

/** Validates a scenario whole (the schema), or its seed alone when the rest was validated before in the same form. @throws ScenarioError @internal */
export function validateScenario(scenario: Scenario): void {
  const shape = shapeOf(scenario);
  if (shape !== undefined && validShapes.has(shape) && seedAccepted(scenario.seed)) return;
  const parsed = scenarioSchema.safeParse(scenario, { reportInput: true });
  if (!parsed.success) throw new ScenarioError(schemaProblem(parsed.error, 'steadystate.simulate', 'scenario'));
  if (shape === undefined || shape.length > MAX_SHAPE_CHARS) return;
  if (validShapes.size >= MAX_SHAPES) validShapes.clear();
  validShapes.add(shape);
}

/**
 * The JSON text of a scenario with its seed as 0, when the text says all the schema sees: plain
 * data only (strings, booleans, null, finite numbers other than -0, arrays without holes, objects
 * of Object.prototype whose own keys are all enumerable strings and no value undefined). Two
 * such scenarios with the same text differ at most in their seed, so the schema's verdict on one
 * holds for the other. Undefined for anything else (a Date, a class instance, a function, a
 * missing array element, an `undefined` member, a symbol or hidden key): the schema decides.
 */
function shapeOf(scenario: Scenario): string | undefined {
  try {
    if (!plainJson(scenario)) return undefined;
    return JSON.stringify({ ...scenario, seed: 0 });
  } catch {
    return undefined; // a getter that throws, a cycle too deep: the schema decides (and names it)
  }
}

/** Whether a value is plain data whose JSON text says all of it (see {@link shapeOf}). */
function plainJson(v: unknown, depth = 0): boolean {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(v) && !Object.is(v, -0);
    case 'object': {
      if (v === null) return true;
      if (depth > 64) return false;
      if (Array.isArray(v)) {
        if (Object.getPrototypeOf(v) !== Array.prototype) return false;
        for (let i = 0; i < v.length; i++) if (!(i in v) || !plainJson(v[i], depth + 1)) return false;
        return true;
      }
      if (Object.getPrototypeOf(v) !== Object.prototype) return false;
      let n = 0;
      for (const k in v) {
        if (!Object.prototype.hasOwnProperty.call(v, k)) return false;
        n++;
        if (!plainJson((v as Record<string, unknown>)[k], depth + 1)) return false;
      }
      // no hidden (non-enumerable) or symbol keys: the schema reads what JSON does not show
      return Reflect.ownKeys(v).length === n;
    }
    default:
      return false;
  }
}
