import { ScenarioError } from '../../harness/simulate.js';
import type { Json, JsonObject } from '../../store/object.js';

/**
 * Resolves an actor's parameters once, up front: every key must be a documented parameter
 * (one of the defaults), of the default's JSON type, numbers finite. A mistake in a scenario
 * file fails at install with a message that names the actor, the parameter and the fix.
 * @internal
 */
export function resolveParams<P extends JsonObject>(actor: string, defaults: Readonly<P>, params: JsonObject | undefined, validate?: (p: P) => string | undefined): P {
  const where = `steadystate.environment(${actor})`;
  if (params !== undefined && (params === null || typeof params !== 'object' || Array.isArray(params))) {
    throw new ScenarioError(`${where}: params must be an object, got ${JSON.stringify(params)}`);
  }
  const out = { ...defaults } as JsonObject;
  for (const [k, v] of Object.entries(params ?? {})) {
    if (!Object.hasOwn(defaults, k)) {
      const known = Object.keys(defaults);
      throw new ScenarioError(`${where}: "${k}" is not a parameter of this actor (known: ${known.length ? known.join(', ') : 'none'}). Fix the scenario's environment entry for "${actor}".`);
    }
    const d = defaults[k] as Json;
    if (d !== null && typeof d !== typeof v) {
      throw new ScenarioError(`${where}: params.${k} must be a ${typeof d} (like the default ${JSON.stringify(d)}), got ${JSON.stringify(v)}`);
    }
    if (typeof v === 'number' && !Number.isFinite(v)) throw new ScenarioError(`${where}: params.${k} must be a finite number, got ${String(v)}`);
    out[k] = v;
  }
  const resolved = out as P;
  const bad = validate?.(resolved);
  if (bad !== undefined) throw new ScenarioError(`${where}: ${bad}`);
  return resolved;
}

/** A validation helper: `name` is a number ≥ min. */
export function checkNumber(params: JsonObject, name: string, min = 0): string | undefined {
  const v = params[name];
  if (typeof v !== 'number' || !(v >= min)) return `params.${name} must be a number ≥ ${min} (virtual ms or a count), got ${JSON.stringify(v)}`;
  return undefined;
}

/** First failing check of several. */
export function firstProblem(...checks: (string | undefined)[]): string | undefined {
  return checks.find((c) => c !== undefined);
}
