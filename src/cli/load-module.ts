import { existsSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { forgedControllerProblem, isControllerDefinition, type ControllerDefinition } from '../runtime/define-controller.js';
import { pinGlobalFetch } from '../downstream/install-global-fetch.js';
import { guardNetwork } from '../downstream/net-guard.js';
import { importUserModule } from './import-module.js';
import { snapshotIntrinsics } from '../host/intrinsics.js';
import { trustExitListeners } from '../host/exit-lock.js';
import { warmUpCompiler } from '../host/child-processes.js';
import { trackModuleThreads } from '../host/module-threads.js';
import { loadTimeoutMs } from './load-timeout.js';
import { UsageError } from './usage-error.js';

const REGISTERED = Symbol.for('steadystate.tsx-registered');

/**
 * Makes `import()` understand TypeScript, once per thread, through tsx's `register()` (global
 * hooks) rather than `tsImport()` (a namespaced copy): the user's module then imports the very
 * same steadystate modules as the CLI, so `instanceof`, shared catalogues and patched globals
 * agree. The bin script registers first and sets the marker; this is for other entry points.
 * @internal
 */
export async function ensureTypeScript(): Promise<void> {
  const g = globalThis as { [REGISTERED]?: boolean };
  if (g[REGISTERED]) return;
  // inside a vitest worker import() already compiles TypeScript (the env var alone is inherited by child processes)
  if ('__vitest_worker__' in globalThis) return;
  const { register } = await import('tsx/esm/api');
  register();
  g[REGISTERED] = true;
}

const DETECTING = Symbol.for('steadystate.esm-detection');

/**
 * A loader hook (run in node's loader thread) that loads a `.ts`/`.tsx` file outside
 * node_modules as an ES module when its source has ESM syntax, even where its package says
 * CommonJS (no `"type": "module"`, or no package.json at all). tsx would pick CommonJS there,
 * and node then refuses the file's `import` of steadystate ("Cannot require() ES Module … in a
 * cycle"): this is node's own module syntax detection, applied to TypeScript.
 */
const esmDetectionHook = String.raw`
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
const esm = /^[ \t]*(?:import[\s{*'"]|import\.meta\b|export[\s{*])/m;
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (r.format !== 'commonjs' || !r.url.startsWith('file:') || r.url.includes('/node_modules/') || !/\.tsx?$/.test(new URL(r.url).pathname)) return r;
  try {
    return esm.test(readFileSync(fileURLToPath(r.url), 'utf8')) ? { ...r, format: 'module' } : r;
  } catch {
    return r;
  }
}
`;

/**
 * Registers {@link esmDetectionHook} once per thread (after tsx, so it sees tsx's answer).
 * @internal
 */
export async function ensureEsmDetection(): Promise<void> {
  const g = globalThis as { [DETECTING]?: boolean };
  if (g[DETECTING] || '__vitest_worker__' in globalThis) return;
  const { register } = await import('node:module');
  register(`data:text/javascript,${encodeURIComponent(esmDetectionHook)}`);
  g[DETECTING] = true;
}

/** A controller exported by a module, and the binding that exports it. @public */
export interface ExportedController {
  exportName: string;
  controller: ControllerDefinition;
}

/** A loaded user module. @public */
export interface LoadedModule {
  /** Absolute path. */
  path: string;
  /** Path relative to the working directory (posix separators), as reports name it. */
  relativePath: string;
  exports: Record<string, unknown>;
  controllers: ExportedController[];
}

/** The `steadystate` command's file (argv[1] under `npx steadystate`), in a checkout and in the published package. */
function steadystateBin(): string {
  for (const up of ['../../bin/steadystate.js', '../../../bin/steadystate.js']) {
    const path = fileURLToPath(new URL(up, import.meta.url));
    if (existsSync(path)) return path;
  }
  return 'steadystate';
}

/**
 * Loads a user's module (TypeScript or JavaScript) and finds the controllers it exports.
 * @param file - path as the user typed it, resolved against `cwd`
 * @param command - the command name, for messages
 * @param onImport - called when the module's top level is about to run (a worker tells the main thread, whose clock then watches for a top level that never returns)
 * @throws UsageError when the file is missing, is a directory, or fails to load
 * @internal
 */
export async function loadModule(file: string, cwd: string, command: string, onImport?: () => void): Promise<LoadedModule> {
  const abs = isAbsolute(file) ? file : resolve(cwd, file);
  if (!existsSync(abs)) {
    throw new UsageError(`steadystate ${command}: cannot find the module ${JSON.stringify(file)} (looked at ${abs}). Paths are relative to the current directory (${cwd}); check the spelling and the extension (.ts, .mts, .js).`);
  }
  if (statSync(abs).isDirectory()) {
    throw new UsageError(`steadystate ${command}: ${JSON.stringify(file)} is a directory; pass the file that exports your controller, e.g. ${file.replace(/\/$/, '')}/index.ts.`);
  }
  await ensureTypeScript();
  await ensureEsmDetection();
  // the compiler's service is started and its pid recorded before the module runs: only it outlives the check (red team rt42 F6b)
  await warmUpCompiler();
  // from here on the process runs user code: its saved fetch reaches the simulation, and no
  // connection leaves the process (the CLI exits when the command ends, so this is never released)
  pinGlobalFetch();
  guardNetwork();
  // the exit listeners the CLI runs at its exit are those present now: the module's could rewrite the reports (red team rt42 F11)
  trustExitListeners();
  // steadystate's own classes are frozen before the module can patch one (red team rt42 F4); loaded here, not at start-up (`--help` stays fast)
  (await import('./seal-harness.js')).sealHarness();
  // the module sees one command line wherever it runs (check in a worker or in this thread,
  // replay): `node <steadystate's bin>`. What the CLI was asked (`check`, `replay`, their flags)
  // must not tell a replay from the check it reproduces (red team F5, stop 43). Not the module's
  // own path: the "am I the entry point?" guard (`import.meta.url === pathToFileURL(argv[1]).href`)
  // would run an operator's production main() inside the check (red team H3, stop 43). Not in a
  // vitest worker (a test running the CLI in-process): the test runner's own command line stays its own
  if (!('__vitest_worker__' in globalThis)) {
    process.argv.splice(0, process.argv.length, process.execPath, steadystateBin());
    // threads the module starts in this thread are ended before the verdict is written (red team H5, H6, stop 43)
    trackModuleThreads();
  }
  onImport?.();
  const before = snapshotIntrinsics();
  const exports = await importUserModule(abs, file, command, loadTimeoutMs());
  // the verdict is computed with these built-ins, in this thread: a module that replaced one at
  // import (Array.prototype.push dropping failure records, an iterator skipping judges) could
  // pass anything (red team N1, stop 41). Data keys it only added to a built-in's prototype (a
  // polyfill) stay; hijacking ones (Array.prototype.then), any key added to Object.prototype or any
  // added accessor (inherited by the harness's own objects: an `interrupted` getter dropped failing
  // runs, red team rt42 F3), and replacements are refused.
  const replaced = before.changed().filter((c) => !c.endsWith(' (added)') || /\.(then|toJSON) \(added\)$/.test(c));
  if (replaced.length > 0) {
    throw new UsageError(
      `steadystate ${command}: ${JSON.stringify(file)} replaced built-ins at import: ${replaced.join(', ')}. steadystate judges every run with them, so a module that replaces them cannot be checked (its verdict could be anything). Keep helpers in your own functions, not on the built-ins' prototypes.`,
    );
  }
  const controllers: ExportedController[] = [];
  for (const [exportName, value] of Object.entries(exports)) {
    if (isControllerDefinition(value)) controllers.push({ exportName, controller: value });
    else if (typeof value === 'object' && value !== null && (value as { __steadystate?: unknown }).__steadystate === 'controller') {
      throw new UsageError(`steadystate ${command}: ${JSON.stringify(file)} exports ${exportName}, which carries steadystate's controller mark but was not made by defineController: ${forgedControllerProblem(value)}. Export what defineController({ name, for, reconcile }) returns.`);
    }
  }
  // `export default web` next to `export const web`: list it once, under its name
  const deduped = controllers.filter((c) => c.exportName !== 'default' || !controllers.some((d) => d.exportName !== 'default' && d.controller === c.controller));
  const rel = relative(cwd, abs).split('\\').join('/');
  return { path: abs, relativePath: rel.startsWith('..') ? abs.split('\\').join('/') : rel, exports, controllers: deduped };
}

/**
 * Picks the controller to check: the only one, or the one named by `--controller` (export name
 * or controller name).
 * @throws UsageError when there is none, or several and no (or an unknown) name
 * @internal
 */
export function pickController(mod: LoadedModule, file: string, name: string | undefined, command: string): ExportedController {
  const names = mod.controllers.map((c) => (c.exportName === c.controller.name ? c.exportName : `${c.exportName} (name "${c.controller.name}")`));
  if (mod.controllers.length === 0) {
    const exported = Object.keys(mod.exports);
    throw new UsageError(
      `steadystate ${command}: ${JSON.stringify(file)} exports no controller: ${exported.length ? `none of its exports (${exported.join(', ')}) was made by defineController` : 'it has no exports'}. Export one, e.g. \`export const web = defineController({ name: 'web', for: 'WebApp', reconcile })\`.`,
    );
  }
  if (name !== undefined) {
    const byExport = mod.controllers.find((c) => c.exportName === name);
    const byName = mod.controllers.find((c) => c.controller.name === name);
    // one name for two controllers: checking either could be checking the wrong one (red team N11)
    if (byExport && byName && byExport.controller !== byName.controller) {
      throw new UsageError(`steadystate ${command}: --controller ${name} is ambiguous in ${JSON.stringify(file)}: it is the export ${name} (controller "${byExport.controller.name}") and the name of the controller exported as ${byName.exportName}. Rename one of them so that each name means one controller.`);
    }
    const hit = byExport ?? byName;
    if (hit) return hit;
    throw new UsageError(`steadystate ${command}: --controller ${name} matches no controller exported by ${JSON.stringify(file)}. It exports: ${names.join(', ')}.`);
  }
  if (mod.controllers.length > 1) {
    const first = mod.controllers[0]!;
    throw new UsageError(`steadystate ${command}: ${JSON.stringify(file)} exports ${mod.controllers.length} controllers (${names.join(', ')}); choose one with --controller, e.g. --controller ${first.exportName}.`);
  }
  return mod.controllers[0]!;
}
