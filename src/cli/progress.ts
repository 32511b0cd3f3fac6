import cliProgress from 'cli-progress';
import type { CheckProgress } from '../harness/check-options.js';

/** What the check is doing besides counting runs. @internal */
export interface ProgressDetail {
  phase: 'corpus' | 'runs' | 'shrinking' | 'done';
  /** While shrinking: candidates tried, and what the smallest failing scenario still holds. */
  shrink?: { step: number; faultEvents: number; actions: number };
  /** Wall ms left of the phase's budget (`--time-limit`, the shrink budget), when one is set. */
  budgetLeftMs?: number;
}

/** The detail of a check's progress report, as the display takes it. @internal */
export function progressDetail(p: CheckProgress): ProgressDetail {
  return { phase: p.phase, ...(p.shrink ? { shrink: p.shrink } : {}), ...(p.budgetLeftMs !== undefined ? { budgetLeftMs: p.budgetLeftMs } : {}) };
}

/** Progress of a long check, as the CLI shows it. @internal */
export interface Progress {
  /** Runs done so far and failures found, and the phase (shrinking has no run count to show). */
  update(done: number, failures: number, detail?: ProgressDetail): void;
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

/**
 * The phase in words, with an honest ETA: while running, the remaining runs at the pace so far
 * (and never beyond the time budget); while shrinking, no run count can say how long it takes,
 * so it says how far it got and what is left of the shrink budget.
 */
export function statusLine(done: number, total: number, elapsedMs: number, detail: ProgressDetail | undefined): string {
  const left = detail?.budgetLeftMs;
  if (detail?.phase === 'shrinking') {
    const s = detail.shrink;
    const what = s ? `step ${s.step}, ${s.faultEvents} fault event${s.faultEvents === 1 ? '' : 's'} and ${s.actions} action${s.actions === 1 ? '' : 's'} left` : 'started';
    return `shrinking: ${what}${left !== undefined ? `, at most ${formatSeconds(left)} more (shrink budget)` : ''}`;
  }
  if (done <= 0 || done >= total) return left !== undefined ? `at most ${formatSeconds(left)} (time limit)` : 'ETA -';
  const eta = ((total - done) * elapsedMs) / done;
  return left !== undefined && left < eta ? `ETA ${formatSeconds(left)} (time limit)` : `ETA ${formatSeconds(eta)}`;
}

function barProgress(o: ProgressOptions): Progress {
  const color = !noColor(o.env);
  const now = o.now ?? (() => Date.now());
  const started = now();
  // red says something failed: "0 failed" stays plain
  const failed = (n: number): string => (color && n > 0 ? `\u001b[31m${n} failed\u001b[39m` : `${n} failed`);
  const bar = new cliProgress.SingleBar(
    {
      format: `${o.label} [{bar}] {value}/{total} runs | {failed} | {status}`,
      stream: o.stream,
      hideCursor: true,
      clearOnComplete: false,
      etaBuffer: 50,
      fps: 10,
      barsize: 30,
    },
    cliProgress.Presets.legacy,
  );
  bar.start(o.total, 0, { failed: failed(0), status: 'ETA -' });
  let stopped = false;
  return {
    update(done, f, detail) {
      if (!stopped) bar.update(Math.min(done, o.total), { failed: failed(f), status: statusLine(done, o.total, now() - started, detail) });
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
  let detail: ProgressDetail | undefined;
  const line = (final: boolean): void => {
    const elapsed = now() - started;
    if (final) {
      o.stream.write(`${o.label}: ${done} run${done === 1 ? '' : 's'}, ${fails} failed, ${formatSeconds(elapsed)}\n`);
      return;
    }
    const status = statusLine(done, o.total, elapsed, detail);
    o.stream.write(`${o.label}: ${done}/${o.total} runs, ${fails} failed${status === 'ETA -' ? '' : `, ${status}`}, ${formatSeconds(elapsed)} elapsed\n`);
  };
  return {
    update(d, f, next) {
      done = d;
      fails = f;
      // a new phase gets its line at once (the first shrink step says shrinking began)
      const changed = next !== undefined && next.phase !== detail?.phase;
      detail = next;
      const t = now();
      if (t - last >= every || (changed && next.phase === 'shrinking')) {
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
