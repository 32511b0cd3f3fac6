import type { DeterminismReport } from '../harness/check-result.js';
import { z } from 'zod';
import type { RecordedInputs } from '../harness/recorded-inputs.js';
import { scenarioSchema, type Scenario } from '../harness/scenario.js';
import { schemaProblem } from '../harness/schema-problem.js';
import type { JsonObject } from '../store/object.js';
import { fnv1a, hex8, stableStringify } from '../sim/hash.js';
import type { ControllerSource, FailedReportModel } from './result.js';
import { version } from './version.js';

/** Format version of {@link ReproductionFile}; bumped on any incompatible change. @public */
export const reproductionFormatVersion = 3;

/**
 * The self-contained reproduction of a failure (SPEC §6): everything `steadystate replay` needs
 * besides the controller's code. Plain, versioned JSON, safe to paste into a bug report.
 * @public
 */
export interface ReproductionFile {
  type: 'steadystate/reproduction';
  /** steadystate version that wrote it; replay requires the same version (traces may differ across versions). */
  steadystate: string;
  formatVersion: typeof reproductionFormatVersion;
  controller: {
    name: string;
    /** Module and export to load it from (null when written from a test without a module path). */
    source: ControllerSource | null;
  };
  property: {
    name: string;
    /** Options of the property when not the defaults. */
    options: JsonObject | null;
  };
  /** Properties and fault kinds the check ran with. */
  properties: string[];
  faults: string[];
  /**
   * Everything about the check that is data and decides the run (properties with their options,
   * fault kinds, tail, read tracing, downstream services): a replay whose inputs differ fails and
   * names the difference. Null for a verdict on a whole check (fault coverage).
   */
  inputs: RecordedInputs | null;
  /** What is code and must be passed to a replay besides the controller, in words (the downstream factory, …). */
  code: string[];
  summary: string;
  /** "Let: … Then: …" */
  explanation: string;
  evidence: JsonObject;
  /** fast-check seed and path of the failing run. */
  seed: number;
  path: string;
  /** The shrunk, minimal scenario: replaying it alone reproduces the failure. */
  scenario: Scenario;
  /** The scenario as first found, before shrinking. */
  originalScenario: Scenario;
  runs: number;
  failedAtRun: number;
  shrinks: number;
  /** Trace hash of the minimal scenario's run; a replay must reproduce it exactly. */
  traceHash: string;
  determinism: DeterminismReport;
  /**
   * What the check wrote of each field that decides a replay's verdict (the controller's name,
   * the property, the inputs, the trace hash, each field of the scenario), as a digest: a replay
   * refuses a file edited since, naming the fields (a scenario with its fault removed would
   * "pass"). Delete it to replay an edited file on purpose.
   */
  digests?: Record<string, string>;
}

/**
 * The reproduction of a failed check as JSON text (2-space indented, trailing newline).
 * @public
 */
export function toReproductionFile(model: FailedReportModel): ReproductionFile {
  const file: ReproductionFile = {
    type: 'steadystate/reproduction',
    steadystate: model.steadystate,
    formatVersion: reproductionFormatVersion,
    controller: { name: model.controller, source: model.source },
    property: { name: model.property, options: model.propertyOptions },
    properties: model.properties,
    faults: model.faults,
    inputs: model.inputs,
    code: model.code,
    summary: model.summary,
    explanation: model.explanation,
    evidence: model.evidence,
    seed: model.seed,
    path: model.path,
    scenario: model.scenario,
    originalScenario: model.originalScenario,
    runs: model.runs,
    failedAtRun: model.failedAtRun,
    shrinks: model.shrinks,
    traceHash: model.traceHash,
    determinism: model.determinism,
  };
  return { ...file, digests: reproductionDigests(file) };
}

/** The digest of each field of a reproduction a replay's verdict depends on. */
function reproductionDigests(file: ReproductionFile): Record<string, string> {
  // as the file holds them: through JSON (undefined members dropped), keys sorted
  const digest = (v: unknown): string => hex8(fnv1a(stableStringify(v === undefined ? null : JSON.parse(JSON.stringify(v)))));
  const out: Record<string, string> = { 'controller.name': digest(file.controller.name), property: digest(file.property), inputs: digest(file.inputs), traceHash: digest(file.traceHash) };
  // the code the check ran: a replay that finds it unchanged never reports a fix (code-digest.ts)
  const code = (file.controller.source as { codeDigest?: unknown } | null)?.codeDigest;
  if (code !== undefined) out['controller.source.codeDigest'] = digest(code);
  for (const [k, v] of Object.entries(file.scenario)) if (v !== undefined) out[`scenario.${k}`] = digest(v);
  return out;
}

/**
 * The fields of a reproduction edited since the check wrote it (its {@link ReproductionFile.digests}
 * disagree), in file order; empty when it has no digests or none differs.
 * @internal
 */
export function editedFields(file: ReproductionFile): string[] {
  if (file.digests === undefined) return [];
  const now = reproductionDigests(file);
  const recorded = file.digests;
  return [...new Set([...Object.keys(now), ...Object.keys(recorded)])].filter((k) => now[k] !== recorded[k]);
}

/** The JSON report writer: the reproduction file's text. @public */
export function json(model: FailedReportModel): string {
  return `${JSON.stringify(toReproductionFile(model), null, 2)}\n`;
}

/**
 * A reproduction file that cannot be used: not JSON, not a reproduction, a field missing or of
 * the wrong type, or written by another steadystate version. The message names the file, the
 * field and the fix.
 * @public
 */
export class ReproductionFileError extends Error {
  readonly file: string;
  readonly reason: 'malformed' | 'version';
  constructor(file: string, reason: 'malformed' | 'version', message: string) {
    super(message);
    this.name = 'ReproductionFileError';
    this.file = file;
    this.reason = reason;
  }
}

/**
 * Parses and validates a reproduction file's text. Errors say which field is wrong.
 * @param text - the file's contents
 * @param file - the file's name, for messages
 * @throws ReproductionFileError
 * @public
 */
export function parseReproductionFile(text: string, file: string): ReproductionFile {
  const where = `steadystate.replay: ${file}`;
  const fix = 'Pass a .json file that steadystate wrote under reports/ (the Markdown and HTML reports cannot be replayed).';
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new ReproductionFileError(file, 'malformed', `${where} is not valid JSON (${err instanceof Error ? err.message : String(err)}). ${fix}`);
  }
  if (!isObject(data) || data['type'] !== 'steadystate/reproduction') {
    throw new ReproductionFileError(file, 'malformed', `${where} is not a steadystate reproduction (its "type" field is ${JSON.stringify(isObject(data) ? data['type'] : undefined)}, expected "steadystate/reproduction"). ${fix}`);
  }
  // a file that does not say who wrote it is a stub or truncated, not another version's
  if (typeof data['steadystate'] !== 'string' || typeof data['formatVersion'] !== 'number') {
    const field = typeof data['steadystate'] !== 'string' ? 'steadystate' : 'formatVersion';
    throw new ReproductionFileError(file, 'malformed', `${where} has no "${field}" field (${field === 'steadystate' ? 'the version that wrote it' : 'its format version'}): it is a stub or a truncated file, not a reproduction steadystate check wrote. ${fix}`);
  }
  if (data['steadystate'] !== version || data['formatVersion'] !== reproductionFormatVersion) {
    throw new ReproductionFileError(
      file,
      'version',
      `${where} was written by steadystate ${String(data['steadystate'])} (format ${String(data['formatVersion'])}), but this is steadystate ${version} (format ${reproductionFormatVersion}); traces are only guaranteed identical within one version. Replay it with the version that wrote it (npx steadystate@${String(data['steadystate'])} replay ${file}), or re-run the check with this version to get a fresh reproduction.`,
    );
  }
  const r = reproductionSchema.safeParse(data, { reportInput: true });
  if (!r.success) throw new ReproductionFileError(file, 'malformed', `${schemaProblem(r.error, where, '', 'field ')} The file looks edited or truncated; ${fix}`);
  return data as unknown as ReproductionFile;
}

const jsonObject = z.record(z.string(), z.json());
const strings = z.array(z.string());

/**
 * The reproduction file's schema: the scenario fields are the one scenario schema; the rest are
 * checked for what replay reads (fields added by newer writers of the same version are kept).
 */
const reproductionSchema = z.looseObject({
  controller: z.looseObject({ name: z.string(), source: z.looseObject({ module: z.string(), exportName: z.string() }).nullable() }),
  property: z.looseObject({ name: z.string(), options: jsonObject.nullable() }),
  properties: strings,
  faults: strings,
  code: strings,
  inputs: z
    .looseObject({
      properties: z.array(z.looseObject({ name: z.string(), options: jsonObject })),
      faults: strings,
      environment: strings,
      tailMs: z.number(),
      traceReads: z.boolean(),
      downstream: z.union([z.looseObject({ builder: z.literal(true) }), z.looseObject({ error: z.string() }), z.looseObject({ services: z.array(z.unknown()), handlers: z.number() })], { error: 'must be null or { services: [...], handlers: number, timeoutMs }' }).nullable(),
    })
    .nullable(),
  summary: z.string(),
  explanation: z.string(),
  evidence: jsonObject,
  seed: z.number(),
  path: z.string(),
  scenario: scenarioSchema,
  originalScenario: scenarioSchema,
  runs: z.number(),
  failedAtRun: z.number(),
  shrinks: z.number(),
  traceHash: z.string(),
  determinism: z.looseObject({ ok: z.boolean() }),
  digests: z.record(z.string(), z.string()).optional(),
});

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
