import { createRequire } from 'node:module';
import { posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { currentSandbox, type ProcessSandbox } from './host-context.js';

/**
 * Files that exist only for one hosted incarnation: reads of their exact (absolute) paths made
 * while that incarnation's code runs are answered from memory, never from the disk, and nothing
 * is ever written to the disk for them. Used for what a pod finds mounted and the host has not
 * (the service-account token, CA and namespace under /var/run/secrets/kubernetes.io/serviceaccount),
 * so client-node's `loadFromCluster()` works without touching the host's /var/run.
 *
 * Answered: `fs.readFileSync`, `fs.existsSync`, `fs.accessSync`, `fs.readFile`, `fs.access`,
 * `fs.promises.readFile` and `fs.promises.access` (`node:fs/promises` is the same object; ESM
 * named imports follow through `syncBuiltinESMExports`). The folder holding the files exists for
 * `existsSync`/`access`; the files are read-only (`access(W_OK)` fails with EROFS, as on the
 * read-only volume a pod mounts). Every other path, every other call, and code outside a hosted
 * incarnation with such files go to the real `fs`.
 * @internal
 */

interface VirtualFiles {
  files: ReadonlyMap<string, Buffer>;
  dirs: ReadonlySet<string>;
}

const filesOf = new WeakMap<ProcessSandbox, VirtualFiles>();

/** Gives `sandbox` its files (absolute POSIX paths → contents); read through the patched `fs` while its code runs. @internal */
export function setVirtualFiles(sandbox: ProcessSandbox, files: Readonly<Record<string, string | Uint8Array>>): void {
  const map = new Map<string, Buffer>();
  const dirs = new Set<string>();
  for (const [path, content] of Object.entries(files)) {
    if (!posix.isAbsolute(path)) throw new TypeError(`steadystate: a virtual file needs an absolute path, got ${JSON.stringify(path)}`);
    const p = posix.normalize(path);
    map.set(p, Buffer.from(typeof content === 'string' ? Buffer.from(content, 'utf8') : content));
    dirs.add(posix.dirname(p));
  }
  if (map.size > 0) filesOf.set(sandbox, { files: map, dirs });
}

/** The virtual files of the running incarnation, if it has any. */
function mine(): VirtualFiles | undefined {
  const s = currentSandbox();
  return s === undefined ? undefined : filesOf.get(s);
}

/** The normalized absolute path `p` names, if it is one a virtual file could have (a string, Buffer or file: URL). */
function pathOf(p: unknown): string | undefined {
  let s: string | undefined;
  if (typeof p === 'string') s = p;
  else if (p instanceof URL) {
    if (p.protocol !== 'file:') return undefined;
    try {
      s = fileURLToPath(p);
    } catch {
      return undefined;
    }
  } else if (Buffer.isBuffer(p)) s = p.toString('utf8');
  if (s === undefined || !s.startsWith('/')) return undefined;
  return posix.normalize(s);
}

/** What one path is for the running incarnation: one of its files, its folder, or not virtual. */
type Hit = { file: Buffer; path: string } | { dir: true; path: string } | undefined;
function lookup(p: unknown): Hit {
  const v = mine();
  if (v === undefined) return undefined;
  const path = pathOf(p);
  if (path === undefined) return undefined;
  const file = v.files.get(path);
  if (file !== undefined) return { file, path };
  if (v.dirs.has(path)) return { dir: true, path };
  return undefined;
}

/** An error as node's fs throws it. */
function fsError(code: 'EISDIR' | 'EROFS', syscall: string, path: string): NodeJS.ErrnoException {
  const text = code === 'EISDIR' ? 'illegal operation on a directory' : 'read-only file system';
  const errno = code === 'EISDIR' ? -21 : -30;
  return Object.assign(new Error(`${code}: ${text}, ${syscall}${syscall === 'read' ? '' : ` '${path}'`}`), { errno, code, syscall, ...(syscall === 'read' ? {} : { path }) });
}

/** `readFile*`'s encoding option. */
function encodingOf(options: unknown): BufferEncoding | undefined {
  if (typeof options === 'string') return options as BufferEncoding;
  if (options !== null && typeof options === 'object') {
    const e = (options as { encoding?: unknown }).encoding;
    if (typeof e === 'string') return e as BufferEncoding;
  }
  return undefined;
}

/** The contents of a read (a fresh Buffer, or text), or the error a real read would throw. */
function read(hit: NonNullable<Hit>, options: unknown): string | Buffer {
  if ('dir' in hit) throw fsError('EISDIR', 'read', hit.path);
  const enc = encodingOf(options);
  return enc !== undefined ? hit.file.toString(enc) : Buffer.from(hit.file);
}

/** `access`'s check: the files and their folder exist and are readable, never writable. */
function access(hit: NonNullable<Hit>, mode: unknown): void {
  const W_OK = 2;
  if (typeof mode === 'number' && (mode & W_OK) !== 0) throw fsError('EROFS', 'access', hit.path);
}

type AnyFn = (...args: unknown[]) => unknown;
const require = createRequire(import.meta.url);

/**
 * Replaces the `fs` functions that read files with ones that answer the running incarnation's
 * virtual files first; returns the function that puts the real ones back. Called by
 * activateHostedGlobals (which syncs the ESM named exports after it).
 * @internal
 */
export function installVirtualFiles(): () => void {
  const fs = require('node:fs') as Record<string, unknown>;
  const promises = fs['promises'] as Record<string, unknown>;
  const undo: (() => void)[] = [];
  const set = (target: Record<string, unknown>, key: string, make: (real: AnyFn) => AnyFn): void => {
    const real = target[key] as AnyFn;
    const patched = make(real);
    target[key] = patched;
    undo.push(() => {
      if (target[key] === patched) target[key] = real;
    });
  };

  set(fs, 'readFileSync', (real) =>
    function readFileSync(this: unknown, path: unknown, options?: unknown): unknown {
      const hit = lookup(path);
      return hit === undefined ? real.apply(this, [path, options]) : read(hit, options);
    },
  );
  set(fs, 'existsSync', (real) =>
    function existsSync(this: unknown, path: unknown): unknown {
      return lookup(path) !== undefined || real.apply(this, [path]);
    },
  );
  set(fs, 'accessSync', (real) =>
    function accessSync(this: unknown, path: unknown, mode?: unknown): unknown {
      const hit = lookup(path);
      if (hit === undefined) return real.apply(this, [path, mode]);
      access(hit, mode);
      return undefined;
    },
  );
  // the callback forms answer on the next tick (in the caller's async context), with no real I/O
  set(fs, 'readFile', (real) =>
    function readFile(this: unknown, ...args: unknown[]): unknown {
      const cb = args[args.length - 1];
      const hit = typeof cb === 'function' ? lookup(args[0]) : undefined;
      if (hit === undefined) return real.apply(this, args);
      let result: string | Buffer | undefined;
      let error: unknown = null;
      try {
        result = read(hit, args.length > 2 ? args[1] : undefined);
      } catch (err) {
        error = err;
      }
      process.nextTick(() => (error !== null ? (cb as AnyFn)(error) : (cb as AnyFn)(null, result)));
      return undefined;
    },
  );
  set(fs, 'access', (real) =>
    function accessCb(this: unknown, ...args: unknown[]): unknown {
      const cb = args[args.length - 1];
      const hit = typeof cb === 'function' ? lookup(args[0]) : undefined;
      if (hit === undefined) return real.apply(this, args);
      let error: unknown = null;
      try {
        access(hit, args.length > 2 ? args[1] : undefined);
      } catch (err) {
        error = err;
      }
      process.nextTick(() => (cb as AnyFn)(error));
      return undefined;
    },
  );
  set(promises, 'readFile', (real) =>
    function readFile(this: unknown, path: unknown, options?: unknown): unknown {
      const hit = lookup(path);
      if (hit === undefined) return real.apply(this, [path, options]);
      try {
        return Promise.resolve(read(hit, options));
      } catch (err) {
        return Promise.reject(err);
      }
    },
  );
  set(promises, 'access', (real) =>
    function access_(this: unknown, path: unknown, mode?: unknown): unknown {
      const hit = lookup(path);
      if (hit === undefined) return real.apply(this, [path, mode]);
      try {
        access(hit, mode);
        return Promise.resolve(undefined);
      } catch (err) {
        return Promise.reject(err);
      }
    },
  );
  return () => {
    for (const u of undo.reverse()) u();
  };
}
