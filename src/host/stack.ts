import { fileURLToPath } from 'node:url';

/**
 * Stack traces as reports show them: frames of steadystate's own guard and of Node's internals
 * dropped, the working directory and the per-incarnation module query removed (so the same code
 * gives the same text in every run and every process).
 * @internal
 */
export function cleanStack(stack: string | undefined): string | undefined {
  if (stack === undefined) return undefined;
  const cwd = process.cwd();
  const lines = stack.split('\n').filter((l) => !isNoise(l));
  return lines
    .map((l) => l.split(`file://${cwd}/`).join('').split(`${cwd}/`).join('').replace(/[?&]steadystate-incarnation=\d+/g, ''))
    .join('\n');
}

/** The first frame of a stack that is the user's code (`at fn (file:line:col)`), if any. @internal */
export function firstUserFrame(stack: string | undefined): string | undefined {
  const clean = cleanStack(stack);
  if (clean === undefined) return undefined;
  for (const l of clean.split('\n').slice(1)) {
    const t = l.trim();
    if (t.startsWith('at ') && !t.includes('node_modules/')) return t;
  }
  return undefined;
}

/** The stack of the caller of a patched global (the patch's own frames are noise). @internal */
export function stackHere(): string | undefined {
  return cleanStack(new Error('here').stack?.split('\n').slice(1).join('\n').replace(/^/, 'Error\n'));
}

/** This directory (the guard's own frames), as a path and as a file URL. */
const HOST_DIR = fileURLToPath(new URL('.', import.meta.url));
const HOST_URL = new URL('.', import.meta.url).href;

function isNoise(line: string): boolean {
  const t = line.trim();
  return t.startsWith('at ') && (t.includes('node:internal') || t.includes(HOST_DIR) || t.includes(HOST_URL));
}

export { describeThrown } from '../sim/thrown.js';

/** How deep {@link setByModuleLoader} looks: past a library's own calls down to the loader's frames. */
const LOADER_SCAN_FRAMES = 48;

/**
 * Whether the code calling (a patched timer) runs on behalf of Node's module loader rather than
 * the program: walking out from the call, a frame of the loader itself (`node:internal/modules/…`:
 * `Module._compile`, `Module.load`, `ModuleJob.run`) comes before any frame of the program's own
 * files. So it does for a library's module body (under `node_modules`, evaluated once per process:
 * later incarnations and runs get it from the module cache) and for a loader hook such as tsx's
 * require hook (whose cache sets a timer on its first use), and not for the program's module
 * bodies or for a library function the program calls. Frames of this directory are skipped;
 * `entry` (the program's entry file) counts as the program's even under `node_modules`.
 * @internal
 */
export function setByModuleLoader(entry?: { path: string; url: string }): boolean {
  // a timer is nearly always set by the program's own code a few frames out, which a short stack
  // decides (a frame of the program's, or of the loader): the deep look (each frame a CallSite
  // object: tens of µs per hosted timer) is taken only when the short one ran out of frames first
  return loaderFirst(entry, LOADER_FIRST_FRAMES) ?? loaderFirst(entry, LOADER_SCAN_FRAMES) ?? false;
}

/** How many frames the first, short look of {@link setByModuleLoader} takes. */
const LOADER_FIRST_FRAMES = 8;

/**
 * {@link setByModuleLoader}'s walk over the innermost `limit` frames: true or false when a frame
 * decides (the loader's, the program's) or the whole stack was seen, undefined when the `limit`
 * frames ran out first (a deeper look would go on from there).
 */
function loaderFirst(entry: { path: string; url: string } | undefined, limit: number): boolean | undefined {
  const prepare = Error.prepareStackTrace;
  const was = Error.stackTraceLimit;
  const holder: { stack?: NodeJS.CallSite[] } = {};
  try {
    Error.prepareStackTrace = (_e, sites) => sites;
    Error.stackTraceLimit = limit;
    Error.captureStackTrace(holder, setByModuleLoader);
    const sites = holder.stack;
    if (!Array.isArray(sites)) return false;
    for (const site of sites) {
      const file = site.getFileName();
      if (file === undefined || file === null) continue;
      if (file.startsWith('node:')) {
        if (file.startsWith('node:internal/modules/')) return true;
        continue;
      }
      if (file.startsWith(HOST_DIR) || file.startsWith(HOST_URL)) continue;
      const path = file.startsWith('file:') ? file.slice(0, file.includes('?') ? file.indexOf('?') : undefined) : file;
      if (entry !== undefined && (path === entry.path || path === entry.url)) return false;
      if (!path.includes('/node_modules/') && !path.includes('\\node_modules\\')) return false;
    }
    // every frame seen and none decided: not the loader's
    return sites.length < limit ? false : undefined;
  } catch {
    return false;
  } finally {
    Error.prepareStackTrace = prepare;
    Error.stackTraceLimit = was;
  }
}
