/**
 * A mistake in how the CLI was called, or in what it was given (a missing file, a module with no
 * controller, a malformed report). Printed as one paragraph (what, where, how to fix), never
 * with a stack trace, and the process exits with 2.
 * @public
 */
export class UsageError extends Error {
  /** Exit code of the process. */
  readonly exitCode = 2;
  /** Printed as is after the paragraph (a code frame), when there is one. */
  readonly detail: string | undefined;
  constructor(message: string, options: { detail?: string } = {}) {
    super(message);
    this.name = 'UsageError';
    this.detail = options.detail;
  }
}

/**
 * The paragraph printed for a usage error: the message, followed by where to find help.
 * @param error - the usage error
 * @param command - the command being run, for the help hint
 * @internal
 */
export function formatUsageError(error: UsageError, command: string | undefined): string {
  const help = command ? `steadystate ${command} --help` : 'steadystate --help';
  const text = error.message.trim().replace(/\s*\n\s*/g, ' ');
  return `${text} (See ${help}.)\n${error.detail ? `\n${error.detail.replace(/\n*$/, '')}\n` : ''}`;
}
