import fc from 'fast-check';
import type { BackgroundFault, FaultEvent } from '../../src/harness/fault-plan.js';
import type { Json, JsonObject } from '../../src/store/object.js';
import { keyOf } from '../../src/store/object.js';
import type { WatchEventInfo } from '../../src/runtime/seams.js';

/**
 * Small helpers every fault module shares: reading a plan's events and parameters, and the
 * arbitraries of the common shapes (an nth occurrence, a background rate).
 * @internal
 */

/** Events with an `nth`, by that index (several may share one). */
export function byNth(events: readonly FaultEvent[]): Map<number, FaultEvent[]> {
  const out = new Map<number, FaultEvent[]>();
  for (const e of events) {
    if (e.nth === undefined) continue;
    const list = out.get(e.nth);
    if (list) list.push(e);
    else out.set(e.nth, [e]);
  }
  return out;
}

/** The first event at index `nth` whose target (a controller name, when given) matches. */
export function eventAt(index: Map<number, FaultEvent[]>, nth: number, controller?: string): FaultEvent | undefined {
  return index.get(nth)?.find((e) => e.target === undefined || controller === undefined || e.target === controller);
}

/** The strongest background entry (highest rate), if any has a positive rate. */
export function strongest(background: readonly BackgroundFault[]): BackgroundFault | undefined {
  let best: BackgroundFault | undefined;
  for (const b of background) if (b.rate > 0 && (!best || b.rate > best.rate)) best = b;
  return best;
}

/** A numeric parameter, or the default when absent or not a finite number. */
export function num(params: JsonObject | undefined, name: string, dflt: number): number {
  const v: Json | undefined = params?.[name];
  return typeof v === 'number' && Number.isFinite(v) ? v : dflt;
}

/** A boolean parameter, or the default. */
export function bool(params: JsonObject | undefined, name: string, dflt: boolean): boolean {
  const v: Json | undefined = params?.[name];
  return typeof v === 'boolean' ? v : dflt;
}

/** A string parameter, or the default. */
export function str(params: JsonObject | undefined, name: string, dflt: string): string {
  const v: Json | undefined = params?.[name];
  return typeof v === 'string' ? v : dflt;
}

/** An integer parameter clamped to [min, max] (plans are user data: never trust the range). */
export function int(params: JsonObject | undefined, name: string, dflt: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, Math.round(num(params, name, dflt))));
}

/** Up to `maxLength` events of one kind; the array shrinks toward empty. */
export function eventsOf<T extends FaultEvent>(one: fc.Arbitrary<T>, maxLength = 3): fc.Arbitrary<FaultEvent[]> {
  return fc.array(one, { maxLength });
}

/** A background rate in [0, 0.5], in whole percent, shrinking toward 0. */
export function rate(): fc.Arbitrary<number> {
  return fc.integer({ min: 0, max: 50 }).map((p) => p / 100);
}

/** What a watch fault records when it fires: which event of which informer. */
export function watchDetail(i: WatchEventInfo): Record<string, unknown> {
  return { nth: i.seq, controller: i.controller, replica: i.replica, objectKind: i.kind, key: keyOf(i.event.object.metadata), event: i.event.type, rv: i.event.rv };
}

/** One informer's watch stream: controller, replica and kind. */
export function streamOf(i: { controller: string; replica: number; kind: string }): string {
  return `${i.controller}/${i.replica}/${i.kind}`;
}
