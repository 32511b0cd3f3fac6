import { escapingStream } from './terminal-text.js';

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
}

/** The real process's io; every string written to it is escaped for the terminal. @internal */
export function processIo(): CliIo {
  return { stdout: escapingStream(process.stdout), stderr: escapingStream(process.stderr), cwd: process.cwd(), env: process.env };
}
