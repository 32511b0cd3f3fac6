import { existsSync, statSync } from 'node:fs';
import { basename, dirname, extname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { JsonObject } from '../store/object.js';
import type { ControllerDefinition } from '../runtime/define-controller.js';
import type { RuntimeEnv } from '../runtime/env.js';
import type { RestartBackoffOptions } from '../host/crash-loop-backoff.js';
import { hostHandles, hostQuiet, importFresh, importInFlight, loaderIdleSince } from '../host/fresh-import.js';
import type { Sandbox } from '../host/process-sandbox.js';
import { originals } from '../host/originals.js';
import { fakeRestService, resolveFakeRestServiceOptions } from '../downstream/fake-rest-service.js';
import type { SimulateOptions } from '../harness/simulate.js';
import { startHostedKubeProcess } from './hosted-kube-process.js';
import { hostedDefinition, resolveHostedOptions } from './kube-controller.js';
import type { ResourceDefinition } from './resource-definition.js';

/** Options of {@link defineProgram}. @public */
export interface ProgramOptions {
  /** The program's entry module (`.ts`, `.mts`, `.js`, `.mjs`, `.cjs`): a path (relative to the working directory) or a `file:` URL. */
  entry: string | URL;
  /** The primary kind its objects are (as stored, e.g. `'Secret'` or a custom kind `'WebApp'`): what `check` generates. */
  for: string;
  /** The controller's name in traces and reports (`controller:<name>/<replica>`). @defaultValue the entry's file name without extension */
  name?: string;
  /** Arguments after the script, as `process.argv.slice(2)` shows them. @defaultValue [] */
  args?: readonly string[];
  /** Variables added to the program's environment (KUBECONFIG is always the replica's). @defaultValue {} */
  env?: Record<string, string>;
  /** Custom kinds the API must serve (besides built-ins and CRDs in the store). @defaultValue [] */
  resources?: readonly ResourceDefinition[];
  /** Example specs of the primary kind, for `check` (as `defineController`'s `sample`). @defaultValue [] */
  sample?: JsonObject | JsonObject[];
  /** Virtual time every API request takes (≥ 1). @defaultValue 5 */
  requestLatencyMs?: number;
  /** Restarts after the program ends itself. @defaultValue CrashLoopBackOff: 10 s doubling to 5 min */
  restartBackoff?: RestartBackoffOptions;
}

/**
 * A program to host as plain data (JSON: it crosses to worker threads and into reproductions):
 * what `steadystate check --program FILE` and its companion flags say.
 * @public
 */
export interface ProgramSpec {
  /** The entry module: absolute in a check job, relative to the working directory in a reproduction. */
  entry: string;
  for: string;
  name?: string;
  args?: string[];
  env?: Record<string, string>;
  sample?: JsonObject[];
  resources?: ResourceDefinition[];
  restartBackoff?: RestartBackoffOptions;
  /**
   * External REST services the program calls (`--service URL[,option=value…]`): each run gets a
   * fresh {@link fakeRestService} per entry, so `fetch` to its base URL is answered in process.
   * Not a {@link ProgramOptions} field: services are the check's downstream, built by
   * {@link programDownstream}.
   */
  services?: ProgramServiceSpec[];
}

/**
 * A fake REST service as data (the JSON subset of `FakeRestServiceOptions` the command line can
 * say): what one `--service` flag gives a program checked with `--program`.
 * @public
 */
export interface ProgramServiceSpec {
  /** Absolute http(s) URL the service answers under, e.g. `'https://backup-store.example.com'`. */
  baseUrl: string;
  /** Name in reports. @defaultValue the host of `baseUrl` */
  name?: string;
  /** Request header carrying an idempotency key (a POST repeating a key gets the first answer). */
  idempotencyKeyHeader?: string;
  /** Virtual ms each request takes. @defaultValue 0 */
  latencyMs?: number;
  /** Collections served (first path segment); other paths are not answered. @defaultValue any */
  collections?: string[];
}

/**
 * The downstream of a program spec's services (`downstream` of `check`, `simulate`, `replay`):
 * fresh fake services per run, or undefined when the spec has none. The services' options are
 * validated here, once, so a bad `--service` (or an edited reproduction) fails before any run.
 * @throws TypeError (`steadystate.…`) naming the bad service
 * @internal
 */
export function programDownstream(spec: Pick<ProgramSpec, 'services'>): SimulateOptions['downstream'] | undefined {
  const services = spec.services;
  if (services === undefined) return undefined;
  if (!Array.isArray(services) || services.some((s) => s === null || typeof s !== 'object' || Array.isArray(s) || typeof (s as { baseUrl?: unknown }).baseUrl !== 'string')) {
    throw new TypeError(`steadystate.programDownstream: services must be an array of { baseUrl, name?, idempotencyKeyHeader?, latencyMs?, collections? }, got ${JSON.stringify(services)}.`);
  }
  const names = new Set<string>();
  for (const s of services) {
    const resolved = resolveFakeRestServiceOptions(s);
    if (names.has(resolved.name)) throw new TypeError(`steadystate.programDownstream: two services are named ${JSON.stringify(resolved.name)} (${s.baseUrl}); give each its own name.`);
    names.add(resolved.name);
  }
  const list = services.map((s) => ({ ...s }));
  return () => ({ services: list.map((s) => fakeRestService(s)) });
}

/**
 * A program (an operator's entry module, unchanged) as a controller `simulate` and `check` run:
 * each replica is a process whose module is evaluated afresh for every incarnation, with its own
 * `process.env` (`KUBECONFIG` points at the replica's kubeconfig, so
 * `new KubeConfig().loadFromDefault()` at module load finds the simulated cluster) and
 * `process.argv`, virtual timers and clocks, and its console captured. Virtual time stands still
 * while the module loads, until it first waits on the simulation (a timer, a request) or it
 * settled and the host shows nothing it could still be waiting on (an import, a file read).
 * `process.exit`, an uncaught exception or an unhandled rejection ends the incarnation (judged
 * by `never-exits`); the replica restarts after a CrashLoopBackOff delay, as kubelet would
 * restart it. See {@link kubeController} for what the transport and faults do.
 *
 * The program's own files (outside `node_modules`) get a new instance per incarnation;
 * libraries under `node_modules` are shared between incarnations (they hold no program state).
 * @example
 * export const copier = defineProgram({ entry: 'src/secret-copier.ts', for: 'Secret' });
 * @public
 */
export function defineProgram(options: ProgramOptions): ControllerDefinition {
  const where = 'steadystate.defineProgram';
  if (options === null || typeof options !== 'object') throw new TypeError(`${where}: expected an options object { entry, for }, got ${String(options)}`);
  const entry = entryPath(options.entry, where);
  const name = options.name ?? basename(entry, extname(entry));
  if (typeof options.for !== 'string' || options.for === '') throw new TypeError(`${where}({ entry: ${JSON.stringify(String(options.entry))} }): "for" must name the primary kind of the program's objects, e.g. 'Secret'`);
  const args = options.args ?? [];
  if (!Array.isArray(args) || args.some((a) => typeof a !== 'string')) throw new TypeError(`${where}({ name: ${JSON.stringify(name)} }): args must be an array of strings (process.argv after the script)`);
  const resolved = resolveHostedOptions({ ...options, name }, where);
  const root = projectRoot(entry);
  return hostedDefinition(
    { name, for: options.for, ...(options.sample !== undefined ? { sample: options.sample } : {}) },
    {
      start: (env, replica) =>
        startHostedKubeProcess(env, replica, {
          ...resolved,
          argv: [process.execPath, entry, ...args],
          start: (_inc, sandbox) => load(env, () => importFresh(entry, root), sandbox),
        }),
    },
    where,
  );
}

/** The entry as an absolute path of an existing file. */
function entryPath(entry: string | URL, where: string): string {
  const raw = entry instanceof URL ? entry : typeof entry === 'string' && entry.startsWith('file:') ? new URL(entry) : entry;
  if (typeof raw !== 'string' && !(raw instanceof URL)) throw new TypeError(`${where}: entry must be the path of the program's entry module, e.g. 'src/operator.ts', got ${JSON.stringify(entry)}`);
  const path = raw instanceof URL ? fileURLToPath(raw) : isAbsolute(raw) ? raw : resolve(process.cwd(), raw);
  if (!existsSync(path) || statSync(path).isDirectory()) throw new TypeError(`${where}: cannot find the entry module ${JSON.stringify(String(entry))} (looked at ${path}); pass the file that starts the program, e.g. 'src/operator.ts'`);
  return path;
}

/** The folder of the nearest package.json above the entry (the program's files), else the entry's folder. */
function projectRoot(entry: string): string {
  for (let dir = dirname(entry); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return dirname(entry);
  }
}

/**
 * Wall-clock bounds of a module's load hold, in ms. `stalledMs`: loader quiet (no module resolved
 * or loaded) after which a load that has not settled is given up on: a bound on a load that
 * stopped progressing, never on a slow one (under host load importing can take longer than any
 * fixed budget, and a hold ended early starts the program at another virtual time: a false
 * `determinism` failure). `idleAfterLoadMs`: loader quiet after which a settled program that has
 * not waited on the simulation yet is taken as idle, though the host shows work going on (a
 * server it listens with, a handle of the host that came up meanwhile): the last resort, as a
 * settled program the host shows nothing going on for is idle at once (see {@link load}).
 * Tests shorten them.
 * @internal
 */
export const loadHoldBounds = { stalledMs: 30_000, idleAfterLoadMs: 1_000 };

/** Wall-clock ms between two looks at a settled program the host still shows work for (an import, a file read). */
const IDLE_POLL_MS = 5;

/** Loads one incarnation's module at a time per world (the order of their first requests must not depend on the loader). */
const loading = new WeakMap<RuntimeEnv, Promise<unknown>>();

/**
 * Imports the module while holding virtual time still: the loader's real I/O (resolving,
 * transforming, reading files) must not let the simulation move on. Time is held until the
 * program first waits on the simulation (a virtual timer, a request, or its death), or its module
 * settled and the host shows nothing going on that it could still be waiting on (no import, no
 * file read: see hostQuiet) on two host turns in a row; else, with bounds in wall-clock time,
 * until the loader has been quiet a while (see {@link loadHoldBounds}): never while modules are
 * still being loaded, however slowly. Incarnations of one world load one after another; one that
 * is dead by its turn (its run ended while an earlier one loaded) is never imported, so a program
 * whose run is over cannot start and throw outside any run.
 */
function load(env: RuntimeEnv, run: () => Promise<unknown>, sandbox: Sandbox): Promise<unknown> {
  const previous = loading.get(env) ?? Promise.resolve();
  /** The host's handles before the program started (what it opens on top of them is its work). */
  let before: ReadonlySet<object> | undefined;
  const mine = previous.then(() => {
    if (!sandbox.alive) return undefined;
    before = hostHandles();
    return run();
  });
  const turn = new Promise<void>((resolveTurn) => {
    // start-up may go on after the module settled (a CommonJS program importing an ESM client,
    // a file read): time moves once the program first waits on the simulation; a program that
    // never does (idle until a signal) or a top level awaiting real I/O forever must not freeze
    // the run, so bounds on the loader's quiet end the hold too
    const timers: NodeJS.Timeout[] = [];
    let ended = false;
    let poll: NodeJS.Timeout | undefined;
    const done = (): void => {
      if (ended) return;
      ended = true;
      for (const t of timers) originals.clearTimeout(t);
      timers.length = 0;
      if (poll !== undefined) originals.clearTimeout(poll);
      resolveTurn();
    };
    // ref'd: while the hold is on, nothing else may keep the event loop alive (a program that does
    // nothing at all has no handle of its own), and the process or worker must not exit with the
    // run unfinished (red team rt48 I-1: exit 13, an unfinished top-level await). Every hold ends
    // by the stalled bound at the latest, and `done` clears these timers.
    const after = (ms: number, fn: () => void): void => {
      if (!ended) timers.push(originals.setTimeout(fn, ms));
    };
    // ends the hold once the loader has been quiet for `bound()` ms; measured from the later of
    // this load's start and the loader's last resolve or load, so a slow load that keeps loading
    // modules is never cut short. Before giving up, one more host turn lets loader messages
    // already queued (a starved thread reads them late) count. `busy`: work it must not end while
    // (the bound starts over).
    const quietFor = (bound: () => number, since: number, busy?: () => boolean): (() => void) => {
      const check = (recheck: boolean): void => {
        if (ended) return;
        const quiet = originals.performanceNow() - Math.max(since, loaderIdleSince());
        if (quiet < bound()) after(bound() - quiet, () => check(true));
        else if (busy?.()) after(bound(), () => check(true));
        else if (recheck) originals.setImmediate(() => check(false));
        else done();
      };
      return () => check(true);
    };
    // counted from this load's turn (an earlier incarnation's hold may still be on)
    void previous.then(() => after(loadHoldBounds.stalledMs, quietFor(() => loadHoldBounds.stalledMs, originals.performanceNow())));
    sandbox.onFirstWait(done);
    // settled without waiting yet: idle once the host shows nothing it could still be waiting on,
    // on two turns in a row (loader messages already queued arrive in between); what goes on in
    // it is real I/O, whose end the program continues from, so polling only sets how soon this
    // is seen, never what the program did by then
    let quietLooks = 0;
    const look = (): void => {
      poll = undefined;
      if (ended) return;
      quietLooks = hostQuiet(before) ? quietLooks + 1 : 0;
      if (quietLooks >= 2) done();
      else if (quietLooks === 1) originals.setImmediate(look);
      else poll = originals.setTimeout(look, IDLE_POLL_MS);
    };
    // else (the host shows work that is not the program's, or never ends) once the loader has
    // been quiet a while, but never while an import is in flight: a starved loader thread, or a
    // main thread evaluating a large library, can leave it quiet longer than that (a CommonJS
    // program importing the ESM client under host load started late: a false `determinism`)
    mine.then(() => {
      look();
      quietFor(() => loadHoldBounds.idleAfterLoadMs, 0, importInFlight)();
    }, done);
  });
  env.kernel.hold(turn);
  loading.set(env, turn);
  return mine;
}
