import cliProgress from 'cli-progress';

/** Progress of a long check, as the CLI shows it. @internal */
export interface Progress {
  /** Runs done so far and failures found. */
  update(done: number, failures: number): void;
  /** Ends the display (the bar line stays; plain mode prints a last line). */
  stop(): void;
}

/** Where and how to show progress. @internal */
export interface ProgressOptions {
  total: number;
  label: string;
  stream: NodeJS.WriteStream | NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  /** Wall-clock source (injected for tests). @defaultValue Date.now */
  now?: () => number;
  /** Plain mode: at most one line per this many ms. @defaultValue 2000 */
  plainEveryMs?: number;
}

/** Whether the environment asks for no color (https://no-color.org: any non-empty value). @internal */
export function noColor(env: NodeJS.ProcessEnv): boolean {
  return (env['NO_COLOR'] ?? '') !== '';
}

/** Whether this looks like CI (CI=true / CI=1, as GitHub Actions, GitLab and others set it). @internal */
export function isCi(env: NodeJS.ProcessEnv): boolean {
  const ci = (env['CI'] ?? '').toLowerCase();
  return ci !== '' && ci !== 'false' && ci !== '0';
}

/**
 * A progress display: a cli-progress bar (runs done, failures, ETA) on an interactive terminal;
 * plain periodic lines when the stream is not a TTY or `CI` is set, so logs stay readable.
 * Colors only on a TTY and never when `NO_COLOR` is set.
 * @internal
 */
export function createProgress(options: ProgressOptions): Progress {
  const tty = (options.stream as NodeJS.WriteStream).isTTY === true && !isCi(options.env);
  if (tty) return barProgress(options);
  return plainProgress(options);
}

function barProgress(o: ProgressOptions): Progress {
  const color = !noColor(o.env);
  const failures = color ? '\u001b[31m{failures} failed\u001b[39m' : '{failures} failed';
  const bar = new cliProgress.SingleBar(
    {
      format: `${o.label} [{bar}] {value}/{total} runs | ${failures} | ETA {eta_formatted}`,
      stream: o.stream,
      hideCursor: true,
      clearOnComplete: false,
      etaBuffer: 50,
      fps: 10,
      barsize: 30,
    },
    cliProgress.Presets.legacy,
  );
  bar.start(o.total, 0, { failures: 0 });
  let stopped = false;
  return {
    update(done, f) {
      if (!stopped) bar.update(Math.min(done, o.total), { failures: f });
    },
    stop() {
      if (stopped) return;
      stopped = true;
      bar.stop();
    },
  };
}

function plainProgress(o: ProgressOptions): Progress {
  const now = o.now ?? (() => Date.now());
  const every = o.plainEveryMs ?? 2000;
  const started = now();
  let last = started;
  let done = 0;
  let fails = 0;
  let stopped = false;
  const line = (final: boolean): void => {
    const elapsed = now() - started;
    if (final) {
      o.stream.write(`${o.label}: ${done} run${done === 1 ? '' : 's'}, ${fails} failed, ${formatSeconds(elapsed)}\n`);
      return;
    }
    const eta = done > 0 && done < o.total ? `, ETA ${formatSeconds(((o.total - done) * elapsed) / done)}` : '';
    o.stream.write(`${o.label}: ${done}/${o.total} runs, ${fails} failed${eta}, ${formatSeconds(elapsed)} elapsed\n`);
  };
  return {
    update(d, f) {
      done = d;
      fails = f;
      const t = now();
      if (t - last >= every) {
        last = t;
        line(false);
      }
    },
    stop() {
      if (stopped) return;
      stopped = true;
      line(true);
    },
  };
}

function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return s < 60 ? `${s.toFixed(1)}s` : `${Math.floor(s / 60)}m${Math.round(s % 60)}s`;
}
