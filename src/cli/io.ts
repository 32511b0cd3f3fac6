import { escapingStream } from './terminal-text.js';
import { launcherChannel } from './launcher-channel.js';
import { endChildProcesses } from '../host/child-processes.js';

/**
 * What a command may touch of its process: output streams, working directory and environment.
 * Passed in (not read from `process`) so tests can run commands in-process and capture output.
 * @internal
 */
export interface CliIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Ends the processes the checked code started (the real CLI only: a test's io leaves its process's children alone). */
  endChildProcesses?: () => number[];
}

/** The real process's io; every string written to it is escaped for the terminal. @internal */
export function processIo(): CliIo {
  // under the launcher (bin/steadystate.js) the verdict goes over its channel; console.log and
  // process.stdout.write still go to stderr first (this process's fd 1 is the launcher's stderr anyway), in order with it
  const channel = launcherChannel();
  const stdout = verdictStdout();
  return { stdout: escapingStream(channel ?? stdout), stderr: escapingStream(process.stderr), cwd: process.cwd(), env: process.env, endChildProcesses };
}

let claimed: NodeJS.WriteStream | undefined;

/**
 * Stdout as the CLI's alone: a CI job reads the verdict there (`N passed, 0 failed`, or the one
 * JSON object of `--json`), so the code under test must not be able to print a line that looks
 * like one, or break the JSON. The first call keeps the stream's write for the CLI (the stream
 * returned) and points `process.stdout.write` (console.log, a worker thread's stdout) at stderr,
 * where user output still shows.
 * @internal
 */
export function verdictStdout(): NodeJS.WriteStream {
  if (claimed !== undefined) return claimed;
  const stdout = process.stdout;
  const write = stdout.write as (...args: unknown[]) => boolean;
  const toStderr = (...args: unknown[]): boolean => (process.stderr.write as (...a: unknown[]) => boolean).apply(process.stderr, args);
  stdout.write = toStderr as typeof stdout.write;
  // the stream's own sink, as it is now: code under test that replaced it (`process.stdout._write`)
  // would rewrite the verdict on its way out (red team, stop 40), so each write of the CLI puts it back
  const sink = stdout as unknown as { _write: unknown; _writev: unknown };
  const [ownWrite, ownWritev] = [sink._write, sink._writev];
  claimed = new Proxy(stdout, {
    get(target, key) {
      if (key === 'write')
        return (...args: unknown[]) => {
          if (sink._write !== ownWrite) sink._write = ownWrite;
          if (sink._writev !== ownWritev) sink._writev = ownWritev;
          return write.apply(target, args);
        };
      const v = Reflect.get(target, key, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return claimed;
}
