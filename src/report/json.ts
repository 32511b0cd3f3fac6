import type { DeterminismReport } from '../harness/check-result.js';
import type { RecordedInputs } from '../harness/recorded-inputs.js';
import type { Scenario } from '../harness/scenario.js';
import type { JsonObject } from '../store/object.js';
import type { ControllerSource, FailedReportModel } from './result.js';
import { version } from './version.js';

/** Format version of {@link ReproductionFile}; bumped on any incompatible change. @public */
export const reproductionFormatVersion = 2;

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
}

/**
 * The reproduction of a failed check as JSON text (2-space indented, trailing newline).
 * @public
 */
export function toReproductionFile(model: FailedReportModel): ReproductionFile {
  return {
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
  if (data['steadystate'] !== version || data['formatVersion'] !== reproductionFormatVersion) {
    throw new ReproductionFileError(
      file,
      'version',
      `${where} was written by steadystate ${String(data['steadystate'])} (format ${String(data['formatVersion'])}), but this is steadystate ${version} (format ${reproductionFormatVersion}); traces are only guaranteed identical within one version. Replay it with the version that wrote it (npx steadystate@${String(data['steadystate'])} replay ${file}), or re-run the check with this version to get a fresh reproduction.`,
    );
  }
  const bad = (path: string, expected: string): never => {
    throw new ReproductionFileError(file, 'malformed', `${where}: field ${path} should be ${expected}. The file looks edited or truncated; ${fix}`);
  };
  const controller = data['controller'];
  if (!isObject(controller) || typeof controller['name'] !== 'string') bad('controller.name', 'a string');
  const source = (controller as Record<string, unknown>)['source'];
  if (source !== null && (!isObject(source) || typeof source['module'] !== 'string' || typeof source['exportName'] !== 'string')) bad('controller.source', 'null or { module: string, exportName: string }');
  const property = data['property'];
  if (!isObject(property) || typeof property['name'] !== 'string') bad('property.name', 'a string');
  const propertyOptions = (property as Record<string, unknown>)['options'];
  if (propertyOptions !== null && !isObject(propertyOptions)) bad('property.options', 'null or an object');
  for (const f of ['summary', 'explanation', 'path', 'traceHash'] as const) if (typeof data[f] !== 'string') bad(f, 'a string');
  for (const f of ['seed', 'runs', 'failedAtRun', 'shrinks'] as const) if (typeof data[f] !== 'number' || !Number.isFinite(data[f])) bad(f, 'a number');
  for (const f of ['properties', 'faults', 'code'] as const) if (!Array.isArray(data[f]) || !(data[f] as unknown[]).every((x) => typeof x === 'string')) bad(f, 'an array of strings');
  checkInputs(data['inputs'], bad);
  checkScenario(data['scenario'], 'scenario', bad);
  checkScenario(data['originalScenario'], 'originalScenario', bad);
  if (!isObject(data['evidence'])) bad('evidence', 'an object');
  if (!isObject(data['determinism'])) bad('determinism', 'an object');
  return data as unknown as ReproductionFile;
}

function checkScenario(s: unknown, at: string, bad: (path: string, expected: string) => never): void {
  if (!isObject(s)) bad(at, 'a scenario object');
  const o = s as Record<string, unknown>;
  if (typeof o['seed'] !== 'number') bad(`${at}.seed`, 'a number');
  if (!Array.isArray(o['controllers']) || !o['controllers'].every((c) => isObject(c) && typeof c['name'] === 'string')) bad(`${at}.controllers`, 'an array of { name: string }');
  if (!Array.isArray(o['initialObjects'])) bad(`${at}.initialObjects`, 'an array');
  if (!Array.isArray(o['workload'])) bad(`${at}.workload`, 'an array');
  const faults = o['faults'];
  if (!isObject(faults) || !Array.isArray(faults['events']) || !Array.isArray(faults['background'])) bad(`${at}.faults`, 'a fault plan { events: [], background: [] }');
}

function checkInputs(v: unknown, bad: (path: string, expected: string) => never): void {
  if (v === null) return;
  if (!isObject(v)) bad('inputs', 'null or the recorded inputs { properties, faults, environment, tailMs, traceReads, downstream }');
  const o = v as Record<string, unknown>;
  if (!Array.isArray(o['properties']) || !o['properties'].every((p) => isObject(p) && typeof p['name'] === 'string' && isObject(p['options']))) bad('inputs.properties', 'an array of { name: string, options: object }');
  for (const f of ['faults', 'environment'] as const) if (!Array.isArray(o[f]) || !(o[f] as unknown[]).every((x) => typeof x === 'string')) bad(`inputs.${f}`, 'an array of strings');
  if (typeof o['tailMs'] !== 'number' || !Number.isFinite(o['tailMs'])) bad('inputs.tailMs', 'a number');
  if (typeof o['traceReads'] !== 'boolean') bad('inputs.traceReads', 'a boolean');
  const ds = o['downstream'];
  if (ds !== null && !(isObject(ds) && (ds['builder'] === true || typeof ds['error'] === 'string' || (Array.isArray(ds['services']) && typeof ds['handlers'] === 'number'))))
    bad('inputs.downstream', 'null or { services: [...], handlers: number, timeoutMs }');
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
