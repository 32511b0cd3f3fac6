import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fnv1a, hex8 } from '../sim/hash.js';

/**
 * A report directory or file that could not be written, with a message for people (what,
 * where, how to fix). The CLI turns it into a usage error (exit 2).
 * @public
 */
export class ReportWriteError extends Error {
  readonly path: string;
  constructor(path: string, cause: unknown) {
    const code = (cause as { code?: string } | null)?.code;
    const why =
      code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
        ? 'permission denied'
        : code === 'ENOTDIR' || code === 'EEXIST'
          ? 'a path component is a file, not a directory'
          : code === 'ENOSPC'
            ? 'the disk is full'
            : cause instanceof Error
              ? cause.message
              : String(cause);
    super(`steadystate.report: cannot write ${JSON.stringify(path)} (${why}). Choose a directory you can write to (e.g. --report-dir ./reports) or fix its permissions.`);
    this.name = 'ReportWriteError';
    this.path = path;
  }
}

/**
 * Writes `contents` to `path` atomically: into a temporary file beside it, then `rename`, so a
 * reader (or a crash half-way) never sees a truncated report. Creates missing directories.
 * @param path - destination file
 * @param contents - the whole file
 * @throws ReportWriteError when the directory or file cannot be written
 * @example
 * writeAtomic('reports/web-convergence-42.json', JSON.stringify(file));
 * @public
 */
export function writeAtomic(path: string, contents: string): void {
  const tmp = join(dirname(path), `.${safeFileName(path.split(/[\\/]/).pop() ?? 'report')}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    mkdirSync(dirname(path), { recursive: true });
    cleanLeftovers(dirname(path));
    writeFileSync(tmp, contents, { flag: 'wx' });
    renameSync(tmp, path);
  } catch (err) {
    removeQuietly(tmp);
    throw new ReportWriteError(path, err);
  }
}

/**
 * Checks up front that `dir` can hold reports (creates it, writes and removes a probe file),
 * so a long check does not fail at the very end.
 * @throws ReportWriteError
 * @public
 */
export function ensureWritableDir(dir: string): void {
  const probe = join(dir, `.steadystate-write-probe.${process.pid}.${randomBytes(4).toString('hex')}`);
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(probe, '', { flag: 'wx' });
    removeQuietly(probe);
  } catch (err) {
    throw new ReportWriteError(dir, err);
  }
}

/** Temporary files of writeAtomic (`.<name>.<pid>.<8 hex>.tmp`) and ensureWritableDir's probes. */
const LEFTOVERS = [/^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$/, /^\.steadystate-write-probe\.(\d+)\.[0-9a-f]{8}$/];
const cleaned = new Set<string>();

/**
 * Removes the temporary files a killed writer left in `dir` (once per directory and process):
 * those whose process is gone. A live writer's files, and every other file, are kept.
 */
function cleanLeftovers(dir: string): void {
  if (cleaned.has(dir)) return;
  cleaned.add(dir);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = LEFTOVERS.map((re) => re.exec(name)?.[1]).find((p) => p !== undefined);
    if (pid !== undefined && !alive(Number(pid))) removeQuietly(join(dir, name));
  }
}

/** Whether a process of this pid exists (EPERM: it does, under another user). */
function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === 'EPERM';
  }
}

/** Removes a file if it is there; a cleanup must never hide the error it cleans up after. */
function removeQuietly(file: string): void {
  try {
    rmSync(file, { force: true });
  } catch {
    // ENOTDIR and friends: there is nothing to remove
  }
}

const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/i;
const MAX_NAME = 96;

/**
 * A file-name-safe rendering of any string (object names, controller names, user labels):
 * only `[A-Za-z0-9._-]`, no leading dot, not a reserved device name, at most 96 characters.
 * Lossy inputs get a short hash suffix so different names never collide.
 * @example
 * safeFileName('default/web'); // 'default_web-5d1c8a3e'
 * @public
 */
export function safeFileName(text: string): string {
  let s = text.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '').replace(/_+$/, '');
  const lossy = s !== text;
  if (s === '' || WINDOWS_RESERVED.test(s.split('.')[0] ?? '')) s = `x${s}`;
  if (lossy || s.length > MAX_NAME) s = `${s.slice(0, MAX_NAME - 9)}-${hex8(fnv1a(text))}`;
  return s;
}
