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

/** The real process's io. @internal */
export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd(), env: process.env };
}
