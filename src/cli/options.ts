import { parseArgs } from 'node:util';
import { parseShard, type Shard } from '../harness/shard.js';
import { UsageError } from './usage-error.js';
import type { JsonObject } from '../store/object.js';
import type { ResourceDefinition } from '../kube-rest/resource-definition.js';
import type { RestartBackoffOptions } from '../host/crash-loop-backoff.js';
import type { ProgramServiceSpec } from '../kube-rest/define-program.js';

/**
 * The CLI's one declarative flag table (vitest `cli-config.ts` style): each command's
 * positionals and flags, with a parser per flag. The same table drives parsing (through node's
 * `util.parseArgs`), `--help` and validation, so they cannot drift apart.
 */

/** One flag of a command. @internal */
export interface FlagSpec {
  /** Long name without dashes; also the key in the parsed result (camelCased). */
  readonly name: string;
  readonly short?: string;
  /** Placeholder in help, e.g. `N`; absent for boolean flags. */
  readonly value?: string;
  readonly description: string;
  /** Default shown in help. */
  readonly defaultText?: string;
  /** Turns the raw text into the typed value; throws UsageError naming the flag. */
  readonly parse?: (raw: string, flag: string) => unknown;
  /** May be given several times; the parsed values form a list. */
  readonly multiple?: boolean;
}

/** One command of the CLI. @internal */
export interface CommandSpec {
  readonly name: CommandName;
  readonly summary: string;
  readonly positionals: readonly { name: string; description: string; optional?: boolean; variadic?: boolean }[];
  readonly flags: readonly FlagSpec[];
  readonly examples: readonly string[];
}

/** @internal */
export type CommandName = 'check' | 'replay' | 'demo' | 'merge';

/** Options of `steadystate check`. @internal */
export interface CheckCommandOptions {
  /** Absent with --program. */
  module?: string;
  /** A program's entry module (hosted, unchanged) instead of a module exporting controllers. */
  program?: string;
  /** With --program: the primary kind. */
  for?: string;
  /** With --program: the controller's name. */
  name?: string;
  /** With --program: its arguments (process.argv after the script). */
  arg?: string[];
  /** With --program: variables added to its environment. */
  env?: [string, string][];
  /** With --program: example specs of the primary kind. */
  sample?: JsonObject[];
  /** With --program: custom kinds the simulated API serves. */
  resource?: ResourceDefinition[];
  /** With --program: its restarts after it ends itself. */
  restartBackoff?: RestartBackoffOptions;
  /** With --program: external REST services it calls (a fake service each per run). */
  service?: ProgramServiceSpec[];
  controller?: string;
  runs?: number;
  seed?: number;
  faults?: string[];
  properties?: string[];
  settle?: number;
  /** A story file (YAML). */
  story?: string;
  /** Manifest files or globs created at t=0. */
  manifests?: string[];
  reportDir: string;
  shard?: Shard;
  /** Worker threads; 0 runs in this thread. Absent: one worker thread (so the watchdog can stop a reconcile that never yields). */
  workers?: number;
  watchdog: number;
  json: boolean;
  /** How runs are made: random swarm, coverage-guided swarm, or systematic plans. Absent: swarm. */
  search?: SearchMode;
  /** Wall-clock budget of the search (ms). */
  timeLimit?: number;
  /** Wall-clock budget of shrinking (ms). */
  shrinkTimeLimit?: number;
}

/** Options of `steadystate replay`. @internal */
export interface ReplayCommandOptions {
  report: string;
  module?: string;
  watchdog: number;
  json: boolean;
  /** The user changed the code since the check (a fix): a pass on code other than the check's may exit 0. */
  fixed?: boolean;
}

/** Options of `steadystate merge`. @internal */
export interface MergeCommandOptions {
  shardReports: string[];
  reportDir: string;
  json: boolean;
}

/** Options of `steadystate demo`. @internal */
export interface DemoCommandOptions {
  trials?: number;
  zooRuns?: number;
  reportDir: string;
}

/** What the command line asks for. @internal */
export type ParsedCommandLine =
  | { command: 'help'; topic: CommandName | undefined; /** No arguments at all: help is shown, but nothing was asked for (exit 1, like git). */ bare?: boolean }
  | { command: 'version' }
  | { command: 'check'; options: CheckCommandOptions }
  | { command: 'replay'; options: ReplayCommandOptions }
  | { command: 'demo'; options: DemoCommandOptions }
  | { command: 'merge'; options: MergeCommandOptions };

const MAX_RUNS = 10_000_000;

/** `--search`: `check`'s two generators, or `checkSystematic`'s derived plans. @internal */
export const SEARCH_MODES = ['swarm', 'guided', 'systematic'] as const;
/** @internal */
export type SearchMode = (typeof SEARCH_MODES)[number];

function searchMode(raw: string, flag: string): SearchMode {
  const m = SEARCH_MODES.find((x) => x === raw.trim());
  if (m === undefined) throw new UsageError(`steadystate: ${flag} expects one of ${SEARCH_MODES.join(', ')}, got ${JSON.stringify(raw)}: swarm draws every run at random, guided keeps the runs that reached new behaviour and mutates them, systematic derives fault plans from a fault-free run (e.g. ${flag} guided).`);
  return m;
}

/** A whole number in [min, max]; only digits (no `1e3`, no `10x`). */
function integer(min: number, max: number, what: string, example: number) {
  return (raw: string, flag: string): number => {
    const text = raw.trim();
    if (!/^[+-]?\d+$/.test(text)) throw new UsageError(`steadystate: ${flag} expects ${what}, got ${JSON.stringify(raw)}. Write digits only, e.g. ${flag} ${example}.`);
    const n = Number(text);
    if (!Number.isSafeInteger(n) || n < min || n > max) throw new UsageError(`steadystate: ${flag} expects ${what} between ${min} and ${max}, got ${raw}.`);
    return n;
  };
}

function nameList(raw: string, flag: string): string[] {
  const names = raw.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (names.length === 0) throw new UsageError(`steadystate: ${flag} expects a comma-separated list of names (e.g. ${flag} event-loss,crash-restart), got ${JSON.stringify(raw)}.`);
  return [...new Set(names)];
}

function shard(raw: string, flag: string): Shard {
  try {
    return parseShard(raw);
  } catch (err) {
    throw new UsageError(`${err instanceof Error ? err.message : String(err)}; ${flag} ${raw} names no shard (shards of a CI matrix of n jobs are 1/n … n/n).`);
  }
}

function envPair(raw: string, flag: string): [string, string] {
  const eq = raw.indexOf('=');
  if (eq <= 0) throw new UsageError(`steadystate: ${flag} expects NAME=VALUE, got ${JSON.stringify(raw)}, e.g. ${flag} LOG_LEVEL=debug.`);
  return [raw.slice(0, eq), raw.slice(eq + 1)];
}

function jsonObject(raw: string, flag: string): JsonObject {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch (err) {
    throw new UsageError(`steadystate: ${flag} expects a JSON object, got ${JSON.stringify(raw)} (${err instanceof Error ? err.message : String(err)}), e.g. ${flag} '{"replicas":2}'.`);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new UsageError(`steadystate: ${flag} expects a JSON object (a spec), got ${raw}, e.g. ${flag} '{"replicas":2}'.`);
  return v as JsonObject;
}

function resourceFlag(raw: string, flag: string): ResourceDefinition {
  const m = /^([A-Z][A-Za-z0-9]*)=([a-z][a-z0-9-]*)\.([a-z0-9][a-z0-9.-]*)\/(v[a-z0-9]+)(:cluster)?$/.exec(raw.trim());
  if (!m) throw new UsageError(`steadystate: ${flag} expects KIND=PLURAL.GROUP/VERSION (the kind's CRD names), got ${JSON.stringify(raw)}, e.g. ${flag} WebApp=webapps.example.com/v1 (append :cluster for a cluster-scoped kind).`);
  return { kind: m[1]!, plural: m[2]!, group: m[3]!, version: m[4]!, namespaced: m[5] === undefined };
}

function restartBackoff(raw: string, flag: string): RestartBackoffOptions {
  const m = /^(\d+)(?::(\d+))?$/.exec(raw.trim());
  const initialMs = m ? Number(m[1]) : NaN;
  const maxMs = m?.[2] !== undefined ? Number(m[2]) : Math.max(initialMs, 300_000);
  if (!m || !Number.isSafeInteger(initialMs) || !Number.isSafeInteger(maxMs) || maxMs < initialMs) throw new UsageError(`steadystate: ${flag} expects MS or MS:MAX_MS, virtual milliseconds before the first restart and the most the doubling delay reaches (MAX_MS ≥ MS), got ${JSON.stringify(raw)}, e.g. ${flag} 1000:30000.`);
  return { initialMs, maxMs };
}

/** The options `--service URL,option=value,…` takes (the command line's names for FakeRestServiceOptions). */
const SERVICE_OPTIONS = ['idempotency-key', 'latency', 'name', 'collection'] as const;

/**
 * `--service URL[,idempotency-key=HEADER][,latency=MS][,name=NAME][,collection=NAME]…`: a fake
 * REST service (fakeRestService) answering under URL in every run. `collection` may repeat.
 */
function serviceFlag(raw: string, flag: string): ProgramServiceSpec {
  const example = `e.g. ${flag} https://backup-store.example.com,idempotency-key=Idempotency-Key`;
  const [url = '', ...options] = raw.split(',').map((p) => p.trim());
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.search !== '' || parsed.hash !== '') {
    throw new UsageError(`steadystate: ${flag} expects URL[,option=value…] with an absolute http(s) base URL first (no query or fragment), got ${JSON.stringify(raw)}; ${example}.`);
  }
  const spec: ProgramServiceSpec = { baseUrl: url };
  // a trailing comma adds nothing
  for (const option of options.filter((o) => o !== '')) {
    const eq = option.indexOf('=');
    const key = eq < 0 ? option : option.slice(0, eq);
    const value = eq < 0 ? '' : option.slice(eq + 1).trim();
    if (!(SERVICE_OPTIONS as readonly string[]).includes(key)) {
      const near = SERVICE_OPTIONS.find((o) => o.startsWith(key) || key.startsWith(o)) ?? closest(key, SERVICE_OPTIONS);
      throw new UsageError(`steadystate: ${flag} ${raw}: unknown option ${JSON.stringify(key)}${near ? ` (did you mean ${near}?)` : ''}; the options after the URL are ${SERVICE_OPTIONS.map((o) => `${o}=…`).join(', ')}, comma-separated; ${example}.`);
    }
    if (value === '') throw new UsageError(`steadystate: ${flag} ${raw}: ${key} needs a value (${key}=…); ${example}.`);
    const once = (present: boolean): void => {
      if (present) throw new UsageError(`steadystate: ${flag} ${raw}: ${key} is given twice; give it once.`);
    };
    if (key === 'idempotency-key') {
      once(spec.idempotencyKeyHeader !== undefined);
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(value)) throw new UsageError(`steadystate: ${flag} ${raw}: idempotency-key names the request header carrying the key, got ${JSON.stringify(value)}, which is not a header name; ${example}.`);
      spec.idempotencyKeyHeader = value;
    } else if (key === 'latency') {
      once(spec.latencyMs !== undefined);
      if (!/^\d+$/.test(value) || Number(value) > 86_400_000) throw new UsageError(`steadystate: ${flag} ${raw}: latency=${value} must be the virtual milliseconds each request takes, a whole number from 0 to 86400000, e.g. latency=200.`);
      spec.latencyMs = Number(value);
    } else if (key === 'name') {
      once(spec.name !== undefined);
      spec.name = value;
    } else {
      if (value.includes('/')) throw new UsageError(`steadystate: ${flag} ${raw}: collection=${value} must be one path segment after the URL (e.g. collection=backups).`);
      spec.collections = [...new Set([...(spec.collections ?? []), value])];
    }
  }
  return spec;
}

function nonEmpty(raw: string, flag: string): string {
  if (raw.trim() === '') throw new UsageError(`steadystate: ${flag} expects a value, got an empty string.`);
  return raw;
}

function fileList(raw: string, flag: string): string[] {
  const files = raw.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (files.length === 0) throw new UsageError(`steadystate: ${flag} expects files or globs, comma-separated (e.g. ${flag} 'config/samples/*.yaml'), got ${JSON.stringify(raw)}.`);
  return files;
}

const jsonFlag: FlagSpec = { name: 'json', description: 'print one JSON object to stdout instead of text (reports are still written)' };

/** The table. @internal */
export const commandSpecs: Readonly<Record<CommandName, CommandSpec>> = {
  check: {
    name: 'check',
    summary: 'check a controller module under injected faults; exit 0 when every property holds, 1 when one fails',
    positionals: [{ name: 'module', description: 'a .ts or .js file exporting controllers made by defineController (or none, with --program)', optional: true }],
    flags: [
      { name: 'controller', short: 'c', value: 'NAME', description: 'which controller, when the module exports several (export or controller name)', parse: nonEmpty },
      { name: 'program', value: 'FILE', description: 'check a program instead: its entry module runs unchanged as the operator process (KUBECONFIG, timers and clock provided)', parse: nonEmpty },
      { name: 'for', value: 'KIND', description: 'with --program: the kind of the objects it reconciles (what the check generates)', parse: nonEmpty },
      { name: 'name', value: 'NAME', description: 'with --program: its name in traces and reports', defaultText: 'the file name', parse: nonEmpty },
      { name: 'arg', value: 'ARG', description: 'with --program: one argument of the program (repeat for more)', parse: (raw) => raw, multiple: true },
      { name: 'env', value: 'K=V', description: 'with --program: one environment variable (repeat for more)', parse: envPair, multiple: true },
      { name: 'sample', value: 'JSON', description: 'with --program: an example spec of its objects, e.g. \'{"replicas":2}\' (repeat for more)', parse: jsonObject, multiple: true },
      { name: 'resource', value: 'KIND=PLURAL.GROUP/VERSION', description: 'with --program: a custom kind the API serves, e.g. WebApp=webapps.example.com/v1 (append :cluster when cluster-scoped; repeat for more)', parse: resourceFlag, multiple: true },
      { name: 'service', value: 'URL[,OPT=V…]', description: 'with --program: an external REST API it calls, answered in every run by a fresh fakeRestService under URL (repeat for more); options after the URL, comma-separated: idempotency-key=HEADER (a POST repeating a key gets the first answer), latency=MS (virtual ms per request), name=NAME (in reports; default: the host), collection=NAME (serve only these first path segments; repeat)', parse: serviceFlag, multiple: true },
      { name: 'restart-backoff', value: 'MS[:MAX_MS]', description: "with --program: virtual ms before its first restart after it exits, doubling up to MAX_MS (kubelet's CrashLoopBackOff)", defaultText: '10000:300000', parse: restartBackoff },
      { name: 'runs', short: 'r', value: 'N', description: 'scenarios to generate', defaultText: '100', parse: integer(1, MAX_RUNS, 'a whole number of runs', 100) },
      { name: 'seed', short: 's', value: 'S', description: 'fast-check seed (a failing report names it)', defaultText: 'random', parse: integer(-(2 ** 31), 2 ** 31 - 1, 'a 32-bit integer seed', 42) },
      { name: 'search', value: 'MODE', description: 'how runs are made: swarm (random), guided (coverage-guided swarm: keeps runs that reach new behaviour and mutates them) or systematic (fault plans derived from a fault-free run, one per hazard and pair; --runs caps the plans)', defaultText: 'swarm', parse: searchMode },
      { name: 'faults', short: 'f', value: 'a,b', description: 'fault kinds to enable (swarm-sampled per run)', defaultText: 'all', parse: nameList },
      { name: 'properties', short: 'p', value: 'a,b', description: 'properties to check', defaultText: 'all', parse: nameList },
      { name: 'story', value: 'FILE', description: 'a story file (YAML): the objects and timed steps to test; faults are generated around it', parse: nonEmpty },
      { name: 'manifests', value: 'a,b', description: 'Kubernetes YAML manifests (files or globs) the user creates at t=0', parse: fileList },
      { name: 'settle', value: 'MS', description: 'settle phase after the last fault or action (virtual ms)', defaultText: '30000', parse: integer(0, 86_400_000, 'a duration in virtual milliseconds', 30000) },
      { name: 'report-dir', short: 'o', value: 'DIR', description: 'where reports are written', defaultText: 'reports', parse: nonEmpty },
      { name: 'time-limit', short: 't', value: 'MS', description: 'wall-clock budget of the search: stop generating runs after it (the verdict says so)', defaultText: 'none', parse: integer(1, 86_400_000, 'a wall-clock time in milliseconds', 60000) },
      { name: 'shrink-time-limit', value: 'MS', description: 'wall-clock budget of shrinking a failure: report the smallest failing scenario found by then', defaultText: 'none', parse: integer(1, 86_400_000, 'a wall-clock time in milliseconds', 30000) },
      { name: 'shard', value: 'i/n', description: 'run only shard i of n (1-based); the n shards of one seed cover exactly the unsharded runs', parse: shard },
      { name: 'workers', short: 'w', value: 'N', description: 'run scenarios in N worker threads under a wall-clock watchdog that stops a reconcile stuck in a loop; 0 runs them in this thread (no watchdog)', defaultText: '1', parse: integer(0, 64, 'a number of worker threads', 2) },
      { name: 'watchdog', value: 'MS', description: 'wall-clock ms a worker may go without simulating before it is terminated (its scenario fails, naming the task that never returned)', defaultText: '10000', parse: integer(100, 3_600_000, 'a wall-clock time in milliseconds', 10000) },
      jsonFlag,
    ],
    examples: ['steadystate check src/web-controller.ts', 'steadystate check src/controllers.ts --controller web --runs 500 --seed 42', "steadystate check src/web.ts --story stories/scale-down.yaml --manifests 'config/samples/*.yaml'", 'steadystate check src/web.ts --faults event-loss --properties convergence --shard 1/4 --workers 2', 'steadystate check src/web.ts --search systematic', "steadystate check --program src/operator.ts --for WebApp --resource WebApp=webapps.example.com/v1 --sample '{\"replicas\":2}'", "steadystate check --program src/backup.ts --for Backup --resource Backup=backups.example.com/v1 --service https://backup-store.example.com,idempotency-key=Idempotency-Key"],
  },
  replay: {
    name: 'replay',
    summary: 'rerun a reproduction file: the identical trace and the same failure (exit 1), or, once you fixed the code, exit 0 with --fixed',
    positionals: [{ name: 'report', description: 'a reproduction .json written by steadystate check (under reports/)' }],
    flags: [
      { name: 'module', short: 'm', value: 'FILE', description: 'load the controller from this module instead of the one the report names', parse: nonEmpty },
      { name: 'watchdog', value: 'MS', description: 'for a scenario that hung: wall-clock ms before its worker is terminated', defaultText: '10000', parse: integer(100, 3_600_000, 'a wall-clock time in milliseconds', 10000) },
      { name: 'fixed', description: 'you changed the code since the check (your fix): a pass on code that differs from the code the check ran exits 0 (without it, such a pass exits 1: code can rewrite its own files)' },
      jsonFlag,
    ],
    examples: ['steadystate replay reports/web-convergence-42.json', 'steadystate replay reports/web-convergence-42.json --fixed'],
  },
  merge: {
    name: 'merge',
    summary: 'merge the reports of the shards of one --shard check (a CI matrix) into one report and one JUnit file; exit 1 when a shard failed or is missing',
    positionals: [{ name: 'shard-reports', description: 'the report directories the shards wrote (their --report-dir), or their shard-result.json files', variadic: true }],
    flags: [{ name: 'report-dir', value: 'DIR', description: 'where the merged reports are written', defaultText: 'reports', parse: nonEmpty }, jsonFlag],
    examples: ['steadystate merge reports/shard-*', 'steadystate merge shard-1 shard-2 shard-3 shard-4 --report-dir merged'],
  },
  demo: {
    name: 'demo',
    summary: 'run the bundled examples: the level- vs edge-triggered reference experiment and a shrunk reproduction',
    positionals: [],
    flags: [
      { name: 'trials', short: 'n', value: 'N', description: 'trials per controller', defaultText: '2000', parse: integer(1, 1_000_000, 'a whole number of trials', 200) },
      { name: 'zoo-runs', value: 'N', description: "runs of each bug zoo exhibit's fixed twin, which must pass them all (the buggy one runs until caught, at most 300)", defaultText: '100', parse: integer(1, 1_000_000, 'a whole number of runs', 20) },
      { name: 'report-dir', value: 'DIR', description: 'where the demo writes its reports', defaultText: 'reports', parse: nonEmpty },
    ],
    examples: ['steadystate demo', 'steadystate demo --trials 200 --zoo-runs 20'],
  },
};

const camel = (s: string): string => s.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * Parses argv (without `node` and the script) into a command and its typed options.
 * @throws UsageError for anything malformed, with the fix in the message
 * @internal
 */
export function parseCommandLine(argv: readonly string[]): ParsedCommandLine {
  const [first, ...rest] = argv;
  if (first === undefined) return { command: 'help', topic: undefined, bare: true };
  if (first === '--help' || first === '-h' || first === 'help') {
    const topic = first === 'help' ? rest[0] : undefined;
    if (topic !== undefined && !(topic in commandSpecs)) throw unknownCommand(topic);
    return { command: 'help', topic: topic as CommandName | undefined };
  }
  if (first === '--version' || first === '-v') return { command: 'version' };
  if (!(first in commandSpecs)) throw first.startsWith('-') ? new UsageError(`steadystate: ${first} is not a global option. Global options are --help and --version; other flags follow a command, e.g. steadystate check <module> ${first}.`) : unknownCommand(first);
  const spec = commandSpecs[first as CommandName];
  const flagOptions: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = { help: { type: 'boolean', short: 'h' } };
  for (const f of spec.flags) flagOptions[f.name] = { type: f.value ? 'string' : 'boolean', ...(f.short ? { short: f.short } : {}), ...(f.multiple ? { multiple: true } : {}) };
  let parsed: { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({ args: attachNegativeValues(rest, spec), options: flagOptions, allowPositionals: true, strict: true }) as typeof parsed;
  } catch (err) {
    throw argsError(spec, err);
  }
  if (parsed.values['help'] === true) return { command: 'help', topic: spec.name };
  const variadic = spec.positionals.at(-1)?.variadic === true;
  if (!variadic && parsed.positionals.length > spec.positionals.length) {
    const extra = parsed.positionals.slice(spec.positionals.length);
    throw new UsageError(`steadystate ${spec.name}: unexpected argument${extra.length > 1 ? 's' : ''} ${extra.map((e) => JSON.stringify(e)).join(', ')}; ${spec.name} takes ${spec.positionals.length === 0 ? 'no arguments' : spec.positionals.map((p) => `<${p.name}>`).join(' ')}.`);
  }
  const out: Record<string, unknown> = {};
  spec.positionals.forEach((p, i) => {
    const v = parsed.positionals[i];
    if (v === undefined && p.optional) return;
    if (v === undefined) throw new UsageError(`steadystate ${spec.name}: missing <${p.name}>: ${p.description}. Usage: steadystate ${spec.name} <${p.name}>${p.variadic ? '…' : ''}.`);
    out[camel(p.name)] = p.variadic ? parsed.positionals.slice(i) : v;
  });
  for (const f of spec.flags) {
    const raw = parsed.values[f.name];
    if (raw === undefined) continue;
    const one = (r: string | boolean) => (typeof r === 'string' && f.parse ? f.parse(r, `--${f.name}`) : r);
    out[camel(f.name)] = Array.isArray(raw) ? raw.map(one) : one(raw);
  }
  switch (spec.name) {
    case 'check':
      return { command: 'check', options: { reportDir: 'reports', watchdog: 10_000, json: false, ...out } as CheckCommandOptions };
    case 'replay':
      return { command: 'replay', options: { json: false, watchdog: 10_000, ...out } as ReplayCommandOptions };
    case 'demo':
      return { command: 'demo', options: { reportDir: 'reports', ...out } as DemoCommandOptions };
    case 'merge':
      return { command: 'merge', options: { reportDir: 'reports', json: false, ...out } as MergeCommandOptions };
  }
}

/**
 * `--runs -1` as `--runs=-1`: node's parser reads `-1` as a short option, so the flag would
 * "need a value"; attached, the flag's own parser names the bad value (or accepts `--seed -5`).
 */
function attachNegativeValues(args: readonly string[], spec: CommandSpec): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const next = args[i + 1];
    const flag = a.startsWith('--') ? spec.flags.find((f) => `--${f.name}` === a) : undefined;
    if (flag?.value && next !== undefined && /^-\d/.test(next)) {
      out.push(`${a}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

function unknownCommand(name: string): UsageError {
  const names = Object.keys(commandSpecs);
  const near = closest(name, names);
  return new UsageError(`steadystate: unknown command ${JSON.stringify(name)}${near ? ` (did you mean ${near}?)` : ''}. Commands: ${names.join(', ')}.`);
}

function argsError(spec: CommandSpec, err: unknown): UsageError {
  const code = (err as { code?: string } | null)?.code;
  const message = err instanceof Error ? err.message : String(err);
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const flag = /'([^']+)'/.exec(message)?.[1] ?? message;
    const near = closest(flag.replace(/^-+/, '').split('=')[0] ?? '', spec.flags.map((f) => f.name));
    return new UsageError(`steadystate ${spec.name}: unknown option ${flag}${near ? ` (did you mean --${near}?)` : ''}. Options of ${spec.name}: ${spec.flags.map((f) => `--${f.name}`).join(', ')}.`);
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const flag = /'(?:-[a-zA-Z], )?(--[a-z-]+)/.exec(message)?.[1];
    const f = spec.flags.find((x) => `--${x.name}` === flag);
    if (f && f.value) return new UsageError(`steadystate ${spec.name}: ${flag} needs a value (${flag} ${f.value}): ${f.description}.`);
    if (f) return new UsageError(`steadystate ${spec.name}: ${flag} is a switch and takes no value; write just ${flag}.`);
  }
  return new UsageError(`steadystate ${spec.name}: ${message.replace(/\.$/, '')}. See the options below.`);
}

/** The nearest candidate by edit distance, when it is close enough to be a typo. @internal */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    if (d < bestD) {
      best = c;
      bestD = d;
    }
  }
  return best !== undefined && bestD <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}

/**
 * Checks names given to --faults/--properties against a catalogue.
 * @throws UsageError naming the unknown ones, a likely typo, and the known names
 * @internal
 */
export function checkNames(names: readonly string[], known: readonly string[], flag: string, what: string): void {
  const unknown = names.filter((n) => !known.includes(n));
  if (unknown.length === 0) return;
  const hints = unknown.map((u) => {
    const near = closest(u, known);
    return near ? `${JSON.stringify(u)} (did you mean ${near}?)` : JSON.stringify(u);
  });
  throw new UsageError(`steadystate check: ${flag} names unknown ${unknown.length > 1 ? (what === 'property' ? 'properties' : `${what}s`) : what} ${hints.join(', ')}. Known ${what === 'property' ? 'properties' : `${what}s`}: ${known.join(', ')}.`);
}

/**
 * `--help` text, generated from the table.
 * @param topic - a command, or undefined for the overview
 * @internal
 */
export function helpText(topic: CommandName | undefined, version: string): string {
  if (topic === undefined) {
    const lines = [`steadystate ${version}: test reconcilers under injected faults in a deterministic simulation`, '', 'Usage: steadystate <command> [options]', '', 'Commands:'];
    for (const c of Object.values(commandSpecs)) lines.push(`  ${pad(c.name, 9)}${c.summary}`);
    lines.push('', 'Global options:', `  ${pad('--help, -h', 16)}show help (also: steadystate <command> --help)`, `  ${pad('--version, -v', 16)}print the version`, '', 'Exit codes: 0 every property held, 1 a property failed (reports written), 2 usage error.', '');
    return lines.join('\n');
  }
  const c = commandSpecs[topic];
  const usage = `steadystate ${c.name}${c.positionals.map((p) => ` <${p.name}>`).join('')}${c.flags.length ? ' [options]' : ''}`;
  const lines = [`Usage: ${usage}`, '', c.summary, ''];
  if (c.positionals.length) {
    lines.push('Arguments:');
    for (const p of c.positionals) lines.push(`  ${pad(`<${p.name}>`, 28)}${p.description}`);
    lines.push('');
  }
  lines.push('Options:');
  for (const f of c.flags) lines.push(`  ${pad(`${f.short ? `-${f.short}, ` : '    '}--${f.name}${f.value ? ` ${f.value}` : ''}`, 28)}${f.description}${f.defaultText ? ` (default: ${f.defaultText})` : ''}`);
  lines.push(`  ${pad('-h, --help', 28)}show this help`, '', 'Examples:', ...c.examples.map((e) => `  ${e}`), '');
  return lines.join('\n');
}

function pad(s: string, n: number): string {
  return s.length >= n ? `${s}  ` : s + ' '.repeat(n - s.length);
}
