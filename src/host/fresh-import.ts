import { createRequire, register } from 'node:module';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MessageChannel } from 'node:worker_threads';
import { originals } from './originals.js';

/**
 * Imports a program's entry module as a new instance, with its own copy of every module of the
 * program (the files outside `node_modules`), as a restarted process would load them: state
 * built at module load (a KubeConfig, a client, a cache) is built again. Libraries under
 * `node_modules` are shared (loading `@kubernetes/client-node` once per incarnation would cost
 * more than the runs). ESM modules get a new instance through a query on their URL that a
 * resolve hook passes on to the modules they import; CommonJS modules are evicted from
 * `require.cache` first. TypeScript goes through whatever loader is registered (tsx).
 * @internal
 */

/** The query that names an incarnation's copy of a module (cleaned from stack traces). */
export const INCARNATION_QUERY = 'steadystate-incarnation';

/**
 * Passes an importer's incarnation query on to the project files it imports, and tells the main
 * thread when the loader is busy (a program still loading modules is still starting up): 1 at the
 * start and -1 at the end of every resolve and load, so a slow step (a large file transformed by a
 * starved loader thread) counts as progress when it ends, not only when it begins, and the steps
 * going on are known.
 */
const HOOKS = `
const Q = ${JSON.stringify(INCARNATION_QUERY)};
const re = new RegExp('[?&]' + Q + '=(\\\\d+)');
let port;
export function initialize(data) {
  port = data && data.port;
}
export async function load(url, context, next) {
  port?.postMessage(1);
  try {
    return await next(url, context);
  } finally {
    port?.postMessage(-1);
  }
}
export async function resolve(specifier, context, next) {
  port?.postMessage(1);
  let r;
  try {
    r = await next(specifier, context);
  } finally {
    port?.postMessage(-1);
  }
  const parent = context.parentURL;
  if (!parent || !r.url.startsWith('file:') || r.url.includes('/node_modules/')) return r;
  const m = re.exec(parent);
  if (!m || re.test(r.url)) return r;
  return { ...r, url: r.url + (r.url.includes('?') ? '&' : '?') + Q + '=' + m[1] };
}
`;

let registered = false;
let incarnations = 0;
let lastLoaderActivity = 0;
/** Resolves and loads going on in the loader thread, as far as its messages have arrived. */
let loaderSteps = 0;

/** Wall-clock ms (host clock) of the loader's last resolve or load: a program still importing modules is still starting. @internal */
export function loaderIdleSince(): number {
  return lastLoaderActivity;
}

/** libuv requests in flight, as `process.getActiveResourcesInfo` names them (as the kernel's; handles such as sockets and ports are not requests). */
const REQUEST = /Req|^(ConnectWrap|WriteWrap|ShutdownWrap|SendWrap)$/;

/**
 * The loader thread's port on this thread's event loop, once known: Node references it from the
 * moment an `import()` (anyone's) sends its first request to the loader thread until the last
 * answer is in, so it is an active handle exactly while an import is in flight. Learnt at a
 * program's import made while no other was in flight (the one handle that appears then).
 */
let loaderPort: object | undefined;

/** The host's active handles (sockets, servers, ports, child processes; not timers), or undefined where Node does not list them. */
function activeHandles(): object[] | undefined {
  const list = (process as unknown as { _getActiveHandles?: () => object[] })._getActiveHandles;
  return typeof list === 'function' ? list.call(process) : undefined;
}

/**
 * Whether an import is in flight, as far as the host shows (the loader thread's port referenced,
 * or a resolve or load going on there); false where that cannot be told (the port not learnt yet).
 * @internal
 */
export function importInFlight(): boolean {
  return loaderSteps > 0 || (loaderPort !== undefined && (activeHandles()?.includes(loaderPort) ?? false));
}

/** The host's active handles now, for {@link hostQuiet} to compare with. @internal */
export function hostHandles(): ReadonlySet<object> | undefined {
  const handles = activeHandles();
  return handles && new Set(handles);
}

/**
 * Whether nothing a starting program could be waiting on goes on in the host, as far as it shows:
 * no import in flight (the loader thread's port is not referenced, no resolve or load is going on
 * there), no libuv request in flight (a file read, a DNS lookup, a write), and no active handle
 * that was not in `before` ({@link hostHandles} taken before the program started: a socket, a
 * server, a child process). False when it cannot tell (the loader's port not learnt yet, Node not
 * listing handles). Only a real timer captured before the run guard was installed (the program's
 * timers are virtual) or an unreferenced handle escapes it.
 * @internal
 */
export function hostQuiet(before: ReadonlySet<object> | undefined): boolean {
  const handles = activeHandles();
  if (before === undefined || handles === undefined || loaderPort === undefined || loaderSteps > 0) return false;
  for (const h of handles) if (h === loaderPort || !before.has(h)) return false;
  for (const r of process.getActiveResourcesInfo()) if (REQUEST.test(r)) return false;
  return true;
}

const require = createRequire(import.meta.url);

/**
 * Node's own `import()`: a test runner that rewrites `import()` in our code (vitest's module
 * runner) would load the program its own way, with one shared copy of the modules it imports
 * and other stack traces than the CLI's. A CommonJS file that Node itself requires keeps the
 * real one (code made with `new Function` inside such a runner has no import callback at all).
 */
let nativeImportFn: ((specifier: string) => Promise<unknown>) | undefined;
function nativeImport(specifier: string): Promise<unknown> {
  if (nativeImportFn === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'steadystate-import-'));
    const file = join(dir, 'native-import.cjs');
    writeFileSync(file, 'module.exports = (specifier) => import(specifier);\n', 'utf8');
    nativeImportFn = require(file) as (specifier: string) => Promise<unknown>;
    rmSync(dir, { recursive: true, force: true });
  }
  return nativeImportFn(specifier);
}

/** The marker tsx registration sets (shared with the CLI's module loader). */
const TSX_REGISTERED = Symbol.for('steadystate.tsx-registered');

/** Makes Node's own loader understand TypeScript (the CLI has done it already; vitest has not). */
async function ensureTsx(): Promise<void> {
  const g = globalThis as { [TSX_REGISTERED]?: boolean };
  if (g[TSX_REGISTERED]) return;
  g[TSX_REGISTERED] = true;
  const { register: registerTsx } = await import('tsx/esm/api');
  registerTsx();
}

/**
 * Imports `file` (an absolute path) as a fresh instance. Every call gets its own instance of
 * the program's modules; `root` bounds what counts as the program (default: the file's folder).
 * @internal
 */
export async function importFresh(file: string, root: string = dirname(file)): Promise<unknown> {
  if (!registered) {
    registered = true;
    await ensureTsx();
    const { port1, port2 } = new MessageChannel();
    port1.on('message', (step: unknown) => {
      lastLoaderActivity = originals.performanceNow();
      if (typeof step === 'number') loaderSteps += step;
    });
    port1.unref();
    register(`data:text/javascript,${encodeURIComponent(HOOKS)}`, { data: { port: port2 }, transferList: [port2] });
  }
  lastLoaderActivity = originals.performanceNow();
  const prefix = root.endsWith(sep) ? root : `${root}${sep}`;
  for (const key of Object.keys(require.cache)) {
    if (key.startsWith(prefix) && !key.includes(`${sep}node_modules${sep}`)) delete require.cache[key];
  }
  const url = pathToFileURL(file);
  url.searchParams.set(INCARNATION_QUERY, String(++incarnations));
  const before = loaderPort === undefined ? activeHandles() : undefined;
  const imported = nativeImport(url.href);
  if (before !== undefined) {
    // the import sent its request to the loader thread before returning: its port is the new one
    const added = (activeHandles() ?? []).filter((h) => !before.includes(h) && h.constructor.name === 'MessagePort');
    if (added.length === 1) loaderPort = added[0];
  }
  return imported;
}
