import { version } from '../report/version.js';
import { processIo, type CliIo } from './io.js';
import { helpText, parseCommandLine, type ParsedCommandLine } from './options.js';
import { formatUsageError, UsageError } from './usage-error.js';

/**
 * The CLI: parse the command line, dispatch to the command, turn usage errors into one
 * paragraph and exit code 2. Nothing else lives here (vitest `cli.ts` style). Commands are
 * imported on dispatch, so `--help` and `--version` load only the flag table (start-up cost).
 * @param argv - arguments after `node steadystate`
 * @returns the exit code: 0 pass, 1 a property failed, 2 usage error
 * @internal
 */
export async function run(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  let parsed: ParsedCommandLine | undefined;
  try {
    parsed = parseCommandLine(argv);
    switch (parsed.command) {
      case 'help':
        io.stdout.write(helpText(parsed.topic, version));
        // `steadystate` alone asked for nothing: the usage, and exit 1 (as git does)
        return parsed.bare === true ? 1 : 0;
      case 'version':
        io.stdout.write(`${version}\n`);
        return 0;
      case 'check':
        return await (await import('./commands/check.js')).checkCommand(parsed.options, io);
      case 'replay':
        return await (await import('./commands/replay.js')).replayCommand(parsed.options, io);
      case 'demo':
        return await (await import('./commands/demo.js')).demoCommand(parsed.options, io);
      case 'merge':
        return await (await import('./commands/merge.js')).mergeCommand(parsed.options, io);
    }
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(formatUsageError(err, parsed && parsed.command !== 'help' && parsed.command !== 'version' ? parsed.command : commandOf(argv)));
      return 2;
    }
    // not the user's input: a bug here or an exception escaping the checked code
    io.stderr.write(`steadystate: unexpected error; please report it with the command line you ran.\n${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return 1;
  }
}

function commandOf(argv: readonly string[]): string | undefined {
  const c = argv[0];
  return c === 'check' || c === 'replay' || c === 'demo' || c === 'merge' ? c : undefined;
}
