/**
 * The built-ins the harness computes its verdict and writes its reports with (JSON, Math, the
 * prototypes of Object, Array, Function, Promise, String, Map and Set, Reflect), as they were at a
 * point (the CLI takes it once the user's module has loaded, so a polyfill at import is part of
 * the module): code under test that replaced one (`JSON.stringify = () => '{"ok":true}'`) would
 * forge the JSON on stdout and in the reports. {@link IntrinsicsSnapshot.restore} puts back every
 * property replaced, added or deleted since, and names them.
 *
 * The code here runs right after code that may have replaced any of these built-ins, so it uses
 * none of them directly: only functions captured when this module loaded, indexed loops and
 * index stores (no `push`, no iterators, no `Map`).
 * @internal
 */
export interface IntrinsicsSnapshot {
  /** Restores what changed since the snapshot; returns the names (`JSON.stringify`), empty when nothing did. */
  restore(): string[];
  /**
   * What changed since the snapshot, without restoring it. A data key added to a prototype other
   * than Object.prototype (a polyfill) ends in " (added)"; one added to Object.prototype, or an
   * added accessor, says so after it (", inherited by every object", ", an accessor").
   */
  changed(): string[];
}

/**
 * A snapshot the run guard checks at every seam between the code under test and the harness's
 * own code. {@link quick} compares the writable data properties (a compiled sequence of property
 * loads: ~0.2 µs for all of them); {@link verify} also compares the accessors and whether a key
 * was added to the prototypes every object or call goes through.
 * @internal
 */
export interface IntrinsicsGuard extends IntrinsicsSnapshot {
  /** Whether every watched data property still holds its snapshot value. */
  quick(): boolean;
  /** {@link quick}, the accessors, and no key added to Object/Array/Function/Promise.prototype. */
  verify(): boolean;
  /** Takes `holder[key]` as it is now into the snapshot: the harness's own patch (the loop guard's `Promise.resolve`). */
  accept(holder: object, key: PropertyKey): void;
}

/** The guard the run guard checks, while one is installed. */
let current: IntrinsicsGuard | undefined;

/** Installs (or, with undefined, removes) the guard {@link harnessReplaced} updates. @internal */
export function setCurrentIntrinsicsGuard(guard: IntrinsicsGuard | undefined): void {
  current = guard;
}

/**
 * The harness itself just replaced (or put back) `holder[key]`, a built-in the run guard
 * watches: its own patches are not the code under test's.
 * @internal
 */
export function harnessReplaced(holder: object, key: PropertyKey): void {
  current?.accept(holder, key);
}

// captured when this module loads, before any code under test runs
const ownKeys = Reflect.ownKeys;
const gopd = Object.getOwnPropertyDescriptor;
const defineProperty = Reflect.defineProperty;
const deleteProperty = Reflect.deleteProperty;
const Str = String;
const Fn = Function;
const isArray = Array.isArray;
const same = Object.is;

const protoOf = Object.getPrototypeOf as (o: object) => object;
const ArrayIteratorPrototype = protoOf([][Symbol.iterator]());

const HOLDERS: readonly (readonly [string, object])[] = [
  ['JSON', JSON],
  ['Math', Math],
  ['Reflect', Reflect],
  ['Object', Object],
  ['Object.prototype', Object.prototype],
  ['Array', Array],
  ['Array.prototype', Array.prototype],
  ['Function.prototype', Function.prototype],
  ['Promise', Promise],
  ['Promise.prototype', Promise.prototype],
  ['String', String],
  ['String.prototype', String.prototype],
  ['Number', Number],
  ['Number.prototype', Number.prototype],
  ['Boolean.prototype', Boolean.prototype],
  ['Symbol.prototype', Symbol.prototype],
  ['Map.prototype', Map.prototype],
  ['Set.prototype', Set.prototype],
  ['WeakMap.prototype', WeakMap.prototype],
  ['WeakSet.prototype', WeakSet.prototype],
  ['Date', Date],
  ['Date.prototype', Date.prototype],
  ['RegExp.prototype', RegExp.prototype],
  ['Error', Error],
  ['Error.prototype', Error.prototype],
  // every for…of, spread and destructuring goes through these
  ['%IteratorPrototype%', protoOf(ArrayIteratorPrototype)],
  ['%ArrayIteratorPrototype%', ArrayIteratorPrototype],
  ['%MapIteratorPrototype%', protoOf(new Map<never, never>()[Symbol.iterator]())],
  ['%SetIteratorPrototype%', protoOf(new Set<never>()[Symbol.iterator]())],
  ['%StringIteratorPrototype%', protoOf(''[Symbol.iterator]())],
];
/**
 * Holders looked at only when a run ends (and at {@link IntrinsicsGuard.verify}), not at every
 * seam: the kernel, the store and the runtime hardly use them, and every property checked at a
 * seam costs every reconcile (~1 ns each, twice). A replacement of one still fails the run.
 */
const AT_RUN_END = new Set<object>([String, Number, Number.prototype, Boolean.prototype, Symbol.prototype, WeakMap.prototype, WeakSet.prototype, Date, Date.prototype, RegExp.prototype, Error, Error.prototype, protoOf(''[Symbol.iterator]())]);
/**
 * Whether the seams check this data property, or only the run's end ({@link AT_RUN_END}): a
 * property that is not writable (a function's `name` and `length`, `Symbol.toStringTag`) changes
 * only through `Object.defineProperty`, and the harness's own code reads none of them; a
 * function's `name` and `length` are also native accessors underneath, each load a call
 * (a fifth of the seam check's time). A redefinition of one still fails the run.
 */
function atSeam(holder: object, d: PropertyDescriptor): boolean {
  return !AT_RUN_END.has(holder) && d.writable === true;
}
/** Properties tools set on purpose (source maps, test runners): not watched. */
const UNWATCHED = new Map<object, readonly PropertyKey[]>([[Error, ['stackTraceLimit', 'prepareStackTrace']]]);
/** Holders where an added key changes what the harness's own code does (`Object.prototype.then` makes every object a thenable). */
const ADDITIONS_MATTER = new Set<object>([Object.prototype, Array.prototype, Function.prototype, Promise.prototype]);
/** Keys whose mere addition to Object/Array.prototype hijacks every object (thenables, JSON), looked for at every seam. */
const HIJACKING_KEYS = ['then', 'toJSON'] as const;
/** Globals that must keep naming the built-in itself. */
const GLOBALS = ['JSON', 'Math', 'Reflect', 'Object', 'Array', 'Promise', 'String', 'Number', 'Boolean', 'Map', 'Set', 'WeakMap', 'WeakSet', 'Symbol', 'Error', 'TypeError', 'RegExp', 'structuredClone', 'parseInt', 'parseFloat', 'isNaN', 'isFinite', 'encodeURIComponent', 'decodeURIComponent', 'process'] as const;

/** `Math.max`, `Array.prototype[Symbol.iterator]`. */
function propName(holder: string, k: PropertyKey): string {
  return typeof k === 'symbol' ? `${holder}[${Str(k).slice(7, -1)}]` : `${holder}.${k}`;
}

interface Saved {
  name: string;
  holder: object;
  keys: PropertyKey[];
  descs: PropertyDescriptor[];
  /** Keys not watched ({@link UNWATCHED}). */
  skip: readonly PropertyKey[];
}

function take(): { saved: Saved[]; globals: (PropertyDescriptor | undefined)[] } {
  const saved: Saved[] = [];
  for (let i = 0; i < HOLDERS.length; i++) {
    const name = HOLDERS[i]![0];
    const holder = HOLDERS[i]![1];
    const skip = UNWATCHED.get(holder);
    const all = ownKeys(holder);
    const keys: PropertyKey[] = [];
    for (let j = 0; j < all.length; j++) if (skip === undefined || !skip.includes(all[j]!)) keys[keys.length] = all[j]!;
    const descs: PropertyDescriptor[] = [];
    for (let j = 0; j < keys.length; j++) descs[j] = gopd(holder, keys[j]!)!;
    saved[i] = { name, holder, keys, descs, skip: skip ?? [] };
  }
  const g = globalThis as unknown as Record<string, unknown>;
  const globals: (PropertyDescriptor | undefined)[] = [];
  for (let i = 0; i < GLOBALS.length; i++) {
    const d: (PropertyDescriptor & { seen?: unknown }) | undefined = gopd(g, GLOBALS[i]!);
    // an accessor (Node's `process`) keeps what it is set to: remember what it gave
    if (d !== undefined && !('value' in d)) d.seen = g[GLOBALS[i]!];
    globals[i] = d;
  }
  return { saved, globals };
}

function restoreTo(saved: Saved[], globals: (PropertyDescriptor | undefined)[], apply = true): string[] {
  const changed: string[] = [];
  const g = globalThis as unknown as Record<string, unknown>;
  // the globals first: `globalThis.Object = …` would otherwise hide the rest
  for (let i = 0; i < GLOBALS.length; i++) {
    const d: (PropertyDescriptor & { seen?: unknown }) | undefined = globals[i];
    if (d === undefined) continue;
    const now = gopd(g, GLOBALS[i]!);
    const accessor = 'seen' in d;
    if (now !== undefined && same(now.value, d.value) && now.get === d.get && now.set === d.set && (!accessor || g[GLOBALS[i]!] === d.seen)) continue;
    changed[changed.length] = `globalThis.${GLOBALS[i]!}`;
    if (!apply) continue;
    defineProperty(g, GLOBALS[i]!, d);
    if (accessor) g[GLOBALS[i]!] = d.seen;
  }
  for (let i = 0; i < saved.length; i++) {
    const { name, holder, keys, descs, skip } = saved[i]!;
    const current = ownKeys(holder);
    for (let j = 0; j < current.length; j++) {
      const k = current[j]!;
      let had = false;
      for (let m = 0; m < skip.length; m++) if (skip[m] === k) had = true;
      for (let m = 0; m < keys.length; m++)
        if (keys[m] === k) {
          had = true;
          break;
        }
      if (had) continue;
      // a key added to Object.prototype is read by every object that lacks its own (the harness's
      // optional flags: `timing.interrupted`), and an accessor runs code wherever it is read: no
      // polyfill adds either (red team rt42 F3), so neither is labelled a plain addition
      const added = gopd(holder, k);
      changed[changed.length] = `${propName(name, k)} (added)${holder === Object.prototype ? ', inherited by every object' : added !== undefined && !('value' in added) ? ', an accessor' : ''}`;
      if (apply) deleteProperty(holder, k);
    }
    for (let j = 0; j < keys.length; j++) {
      const k = keys[j]!;
      const d = descs[j]!;
      const now = gopd(holder, k);
      if (now !== undefined && same(now.value, d.value) && now.get === d.get && now.set === d.set) continue;
      changed[changed.length] = propName(name, k);
      if (!apply) continue;
      if (d.configurable || now === undefined) defineProperty(holder, k, d);
      else if (now.writable) (holder as Record<PropertyKey, unknown>)[k] = d.value;
    }
  }
  return changed;
}

/** Takes the snapshot. @internal */
export function snapshotIntrinsics(): IntrinsicsSnapshot {
  const { saved, globals } = take();
  return { restore: () => restoreTo(saved, globals), changed: () => restoreTo(saved, globals, false) };
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/**
 * The compiled quick check for a snapshot: `h3.max !== v[17] || …`, one monomorphic load per
 * property (a loop of keyed loads over ~250 properties of 13 shapes costs ~25× more).
 */
function compileQuick(saved: Saved[], globals: (PropertyDescriptor | undefined)[], atRunEnd: boolean): { quick: () => boolean; slots: Map<object, Map<PropertyKey, number>>; values: unknown[] } {
  const holders: object[] = [];
  const keys: PropertyKey[] = [];
  const values: unknown[] = [];
  const slots = new Map<object, Map<PropertyKey, number>>();
  const lines: string[] = [];
  for (let i = 0; i < (atRunEnd ? 0 : GLOBALS.length); i++) {
    const d = globals[i];
    // an accessor (Node's `process`) is for verify(): a global lookup through a getter keeps the
    // whole function from being optimized (7 µs a call in a run, not 0.2)
    if (d === undefined || !('value' in d)) continue;
    values[values.length] = d.value;
    // a global lookup (a property cell): a load through a reference to the global object is a
    // dictionary lookup that keeps the whole function from being optimized (50× slower in a run)
    lines[lines.length] = `if (${GLOBALS[i]!} !== v[${values.length - 1}]) return false;`;
  }
  for (let i = 0; i < saved.length; i++) {
    const { holder, keys: ks, descs } = saved[i]!;
    holders[i] = holder;
    const slot = new Map<PropertyKey, number>();
    slots.set(holder, slot);
    for (let j = 0; j < ks.length; j++) {
      const d = descs[j]!;
      // accessors are for verify(); a frozen data property cannot change
      if (!('value' in d) || (!d.writable && !d.configurable)) continue;
      if (atSeam(holder, d) === atRunEnd) continue;
      const k = ks[j]!;
      values[values.length] = d.value;
      slot.set(k, values.length - 1);
      let access: string;
      if (typeof k === 'string' && IDENTIFIER.test(k)) access = `.${k}`;
      else {
        keys[keys.length] = k;
        access = `[k[${keys.length - 1}]]`;
      }
      lines[lines.length] = `if (h[${i}]${access} !== v[${values.length - 1}]) return false;`;
    }
  }
  // a key that hijacks every object, added since (an `in`: a getter must not run here)
  for (let i = 0; i < saved.length; i++) {
    if (atRunEnd || (saved[i]!.holder !== Object.prototype && saved[i]!.holder !== Array.prototype)) continue;
    for (let j = 0; j < HIJACKING_KEYS.length; j++) if (!saved[i]!.keys.includes(HIJACKING_KEYS[j]!) && !(HIJACKING_KEYS[j]! in saved[i]!.holder)) lines[lines.length] = `if (${JSON.stringify(HIJACKING_KEYS[j]!)} in h[${i}]) return false;`;
  }
  // one local per holder, so every load is on a known object
  const body = lines.join('\n').replace(/h\[(\d+)\]/g, 'h$1');
  const locals = holders.map((_, i) => `const h${i} = h[${i}];`).join('\n');
  const make = new Fn('h', 'k', 'v', `${locals}\nreturn function quick() {\n${body}\nreturn true;\n};`) as (h: object[], k: PropertyKey[], v: unknown[]) => () => boolean;
  return { quick: make(holders, keys, values), slots, values };
}

/** Takes a snapshot the run guard can check cheaply. @internal */
export function guardIntrinsics(): IntrinsicsGuard {
  const { saved, globals } = take();
  const { quick, slots, values } = compileQuick(saved, globals, false);
  const rest = compileQuick(saved, globals, true);
  const accessors: { holder: object; key: PropertyKey; d: PropertyDescriptor }[] = [];
  const counted: { holder: object; count: number }[] = [];
  const g = globalThis as unknown as Record<string, unknown>;
  const accessorGlobals: { name: string; seen: unknown }[] = [];
  for (let i = 0; i < GLOBALS.length; i++) {
    const d = globals[i] as (PropertyDescriptor & { seen?: unknown }) | undefined;
    if (d !== undefined && 'seen' in d) accessorGlobals[accessorGlobals.length] = { name: GLOBALS[i]!, seen: d.seen };
  }
  for (let i = 0; i < saved.length; i++) {
    const { holder, keys, descs } = saved[i]!;
    for (let j = 0; j < keys.length; j++) if (!('value' in descs[j]!)) accessors[accessors.length] = { holder, key: keys[j]!, d: descs[j]! };
    if (ADDITIONS_MATTER.has(holder)) counted[counted.length] = { holder, count: keys.length };
  }
  return {
    quick,
    verify() {
      if (!quick() || !rest.quick()) return false;
      for (let i = 0; i < accessorGlobals.length; i++) if (g[accessorGlobals[i]!.name] !== accessorGlobals[i]!.seen) return false;
      for (let i = 0; i < accessors.length; i++) {
        const { holder, key, d } = accessors[i]!;
        const now = gopd(holder, key);
        if (now === undefined || now.get !== d.get || now.set !== d.set) return false;
      }
      for (let i = 0; i < counted.length; i++) {
        const keys = ownKeys(counted[i]!.holder);
        if (!isArray(keys) || keys.length !== counted[i]!.count) return false;
      }
      return true;
    },
    accept(holder, key) {
      for (let i = 0; i < saved.length; i++) {
        const s = saved[i]!;
        if (s.holder !== holder) continue;
        const d = gopd(holder, key);
        for (let j = 0; j < s.keys.length; j++) if (s.keys[j] === key && d !== undefined) s.descs[j] = d;
        const slot = slots.get(holder)?.get(key);
        if (slot !== undefined && d !== undefined && 'value' in d) values[slot] = d.value;
        const restSlot = rest.slots.get(holder)?.get(key);
        if (restSlot !== undefined && d !== undefined && 'value' in d) rest.values[restSlot] = d.value;
      }
    },
    restore: () => restoreTo(saved, globals),
    changed: () => restoreTo(saved, globals, false),
  };
}
