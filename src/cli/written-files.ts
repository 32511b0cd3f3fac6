import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** The files this CLI wrote and their bytes, as it wrote them. */
const written = new Map<string, Buffer>();

/**
 * Remembers the files the command just wrote (reports, a shard's result) as they are now, so
 * that {@link restoreWritten} can put them back at exit. A process the checked code started
 * after the check ended its processes (from a timer the code left in the CLI's thread, with
 * `--workers 0`) may rewrite them between their writing and the CLI's exit, when the last such
 * process is ended (red team F6, stop 43).
 * @param paths - files, relative to the working directory or absolute
 * @internal
 */
export function rememberWritten(paths: readonly string[]): void {
  for (const p of paths) {
    const abs = resolve(p);
    try {
      written.set(abs, readFileSync(abs));
    } catch {
      // not there: nothing to keep
    }
  }
}

/**
 * Puts back every remembered file whose content changed (or that is gone) since it was written.
 * Call it after the last processes of the checked code are ended.
 * @returns the files put back
 * @internal
 */
export function restoreWritten(): string[] {
  const restored: string[] = [];
  for (const [path, bytes] of written) {
    let now: Buffer | undefined;
    try {
      now = readFileSync(path);
    } catch {
      now = undefined;
    }
    if (now !== undefined && now.equals(bytes)) continue;
    try {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, bytes);
      restored[restored.length] = path;
    } catch {
      // cannot be written (a folder put in its place): the note below still names it
      restored[restored.length] = `${path} (could not be put back)`;
    }
  }
  return restored;
}
