import type { JsonObject } from '../store/object.js';
import type { Property } from './property.js';
import type { Scenario } from './scenario.js';
import type { SimulateOptions } from './simulate.js';

/**
 * A downstream as a reproduction records it: the fake services a run was built with (name, base
 * URL and the settings that change answers) and how many msw handlers came with them, or
 * `builder` for a custom `{ build(world) }` whose inside cannot be seen.
 * @public
 */
export type RecordedDownstream =
  | {
      services: { name: string; baseUrl: string; idempotencyKeyHeader: string | null; latencyMs: number }[];
      handlers: number;
      timeoutMs: number | null;
    }
  | { builder: true }
  | { error: string };

/**
 * Everything about a check that is data and decides what a run does, as a reproduction file
 * records it (SPEC §6): the properties by name with their options (`'<function>'` marks an option
 * that is code), the fault kinds, the quiet tail, read tracing and the downstream. The scenario
 * (with its timing options) and the trace hash are recorded beside it.
 * @public
 */
export interface RecordedInputs {
  properties: { name: string; options: JsonObject }[];
  faults: string[];
  environment: string[];
  tailMs: number;
  traceReads: boolean;
  downstream: RecordedDownstream | null;
}

/** What a replay or a check runs with, in the shape {@link describeInputs} reads. @internal */
export interface InputSource {
  properties: readonly Property[];
  faults: readonly { kind: string }[];
  environment: readonly { name: string }[];
  tailMs: number;
  traceReads: boolean;
  downstream: SimulateOptions['downstream'] | undefined;
}

/**
 * The recorded form of a check's (or a replay's) inputs. Calls the downstream factory once to
 * see which services it builds (a factory makes fresh services per call; calling it has no other
 * effect on a run).
 * @internal
 */
export function describeInputs(o: InputSource): RecordedInputs {
  return {
    properties: o.properties.map((p) => ({ name: p.name, options: p.options })),
    faults: o.faults.map((f) => f.kind),
    environment: o.environment.map((e) => e.name),
    tailMs: o.tailMs,
    traceReads: o.traceReads,
    downstream: describeDownstream(o.downstream),
  };
}

function describeDownstream(ds: SimulateOptions['downstream'] | undefined): RecordedDownstream | null {
  if (ds === undefined) return null;
  if (typeof ds !== 'function') return { builder: true };
  try {
    const built = ds();
    return {
      services: (built.services ?? []).map((s) => ({ name: s.name, baseUrl: s.baseUrl, idempotencyKeyHeader: s.options?.idempotencyKeyHeader ?? null, latencyMs: s.options?.latencyMs ?? 0 })),
      handlers: (built.handlers ?? []).length,
      timeoutMs: built.timeoutMs ?? null,
    };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * The code a replay needs besides the controller, named for a person: the downstream factory,
 * custom environment actors, properties' options that are functions. Each must come from the
 * module's `checkOptions` (or wherever the check took it from).
 * @internal
 */
export function codeNeeded(inputs: RecordedInputs, failedProperty: string, builtInEnvironment: readonly string[]): string[] {
  const out: string[] = [];
  const ds = inputs.downstream;
  if (ds !== null) out.push(`the downstream factory (${'builder' in ds ? 'a custom build(world)' : 'services' in ds ? `services ${ds.services.map((s) => s.name).join(', ') || 'none'}, ${ds.handlers} msw handler${ds.handlers === 1 ? '' : 's'}` : 'it threw'})`);
  for (const e of inputs.environment) if (!builtInEnvironment.includes(e)) out.push(`the environment actor ${e}`);
  const p = inputs.properties.find((x) => x.name === failedProperty);
  for (const [k, v] of Object.entries(p?.options ?? {})) if (v === '<function>') out.push(`option ${k} of property ${failedProperty} (a function)`);
  return out;
}

/**
 * How a replay's inputs differ from the recorded ones, one sentence each ("recorded with
 * downstream service dns-provider (https://dns.example); this replay has none"). Only inputs
 * that decide the replayed run count: the judged property's options, the fault kinds and
 * environment actors the scenario names, the tail, read tracing and the downstream. An option the
 * recorded property lacks, at its default (`defaults`: the built-in property's) in this replay, is an
 * option added since the reproduction was written, not a difference.
 * @internal
 */
export function inputDifferences(recorded: RecordedInputs, now: RecordedInputs, scenario: Scenario, property: string, defaults?: Readonly<Record<string, unknown>>): string[] {
  const out: string[] = [];
  if (recorded.tailMs !== now.tailMs) out.push(`recorded with tailMs ${recorded.tailMs}; this replay has ${now.tailMs}`);
  if (recorded.traceReads !== now.traceReads) out.push(`recorded with traceReads ${String(recorded.traceReads)}; this replay has ${String(now.traceReads)}`);
  for (const d of downstreamDifferences(recorded.downstream, now.downstream)) out.push(d);
  const was = recorded.properties.find((p) => p.name === property);
  const is = now.properties.find((p) => p.name === property);
  if (was && is) {
    for (const k of [...new Set([...Object.keys(was.options), ...Object.keys(is.options)])].sort()) {
      const a = JSON.stringify(was.options[k] ?? null);
      const b = JSON.stringify(is.options[k] ?? null);
      if (a === b) continue;
      // an option added since the reproduction was written: it ran with what is now the default
      if (!(k in was.options) && defaults !== undefined && k in defaults && JSON.stringify(defaults[k] ?? null) === b) continue;
      if (was.options[k] === '<function>') out.push(`recorded with property ${property} whose option ${k} is a function (code); this replay has ${is.options[k] === undefined ? 'none' : `${b} (the default)`}`);
      else out.push(`recorded with property ${property} with ${k} ${a}; this replay has ${b}`);
    }
  }
  const kinds = new Set([...scenario.faults.events.map((e) => e.kind), ...scenario.faults.background.map((b) => b.kind)]);
  for (const k of [...kinds].sort()) if (!now.faults.includes(k)) out.push(`the scenario injects fault kind ${k}${recorded.faults.includes(k) ? ', which the check had' : ''}; this replay has no fault module of that kind`);
  for (const e of scenario.environment ?? []) if (!now.environment.includes(e.name)) out.push(`the scenario runs environment actor ${e.name}; this replay has none of that name`);
  return out;
}

function downstreamDifferences(was: RecordedDownstream | null, is: RecordedDownstream | null): string[] {
  if (was === null && is === null) return [];
  const show = (d: RecordedDownstream | null): string => (d === null ? 'none' : 'builder' in d ? 'a custom build(world)' : 'error' in d ? `a factory that throws (${d.error})` : d.services.length ? d.services.map((s) => `${s.name} (${s.baseUrl})`).join(', ') : 'no services');
  if (was === null) return [`recorded without a downstream; this replay has ${show(is)}`];
  if (!('services' in was)) return 'builder' in was && is !== null && 'builder' in is ? [] : [`recorded with downstream ${show(was)}; this replay has ${show(is)}`];
  const out: string[] = [];
  const now = is !== null && 'services' in is ? is : undefined;
  for (const s of was.services) {
    const match = now?.services.find((x) => x.name === s.name);
    if (!match) {
      const others = now ? now.services.map((x) => x.name) : [];
      out.push(`recorded with downstream service ${s.name} (${s.baseUrl}); this replay has ${others.length ? `${others.join(', ')} instead` : now || is === null ? 'none' : show(is)}`);
      continue;
    }
    if (match.baseUrl !== s.baseUrl) out.push(`recorded with downstream service ${s.name} at ${s.baseUrl}; this replay has it at ${match.baseUrl}`);
    if (match.idempotencyKeyHeader !== s.idempotencyKeyHeader) out.push(`recorded with downstream service ${s.name} taking idempotency keys in ${s.idempotencyKeyHeader ?? 'no header'}; this replay has ${match.idempotencyKeyHeader ?? 'no header'}`);
    if (match.latencyMs !== s.latencyMs) out.push(`recorded with downstream service ${s.name} answering after ${s.latencyMs} ms; this replay has ${match.latencyMs} ms`);
  }
  for (const s of now?.services ?? []) if (!was.services.some((x) => x.name === s.name)) out.push(`recorded without downstream service ${s.name}; this replay has it (${s.baseUrl})`);
  if (now && now.handlers !== was.handlers) out.push(`recorded with ${was.handlers} msw handler${was.handlers === 1 ? '' : 's'}; this replay has ${now.handlers}`);
  if (now && now.timeoutMs !== was.timeoutMs) out.push(`recorded with a downstream client timeout of ${was.timeoutMs ?? 'the default'} ms; this replay has ${now.timeoutMs ?? 'the default'}`);
  return out;
}
