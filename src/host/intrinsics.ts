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
  ['String.prototype', String.prototype],
  ['Map.prototype', Map.prototype],
  ['Set.prototype', Set.prototype],
];
/** Holders where an added key changes what the harness's own code does (`Object.prototype.then` makes every object a thenable). */
const ADDITIONS_MATTER = new Set<object>([Object.prototype, Array.prototype, Function.prototype, Promise.prototype]);
/** Globals that must keep naming the built-in itself. */
const GLOBALS = ['JSON', 'Math', 'Reflect', 'Object', 'Array', 'Promise', 'String', 'Number', 'Boolean', 'Map', 'Set', 'Symbol'] as const;

interface Saved {
  name: string;
  holder: object;
  keys: PropertyKey[];
  descs: PropertyDescriptor[];
}

function take(): { saved: Saved[]; globals: (PropertyDescriptor | undefined)[] } {
  const saved: Saved[] = [];
  for (let i = 0; i < HOLDERS.length; i++) {
    const name = HOLDERS[i]![0];
    const holder = HOLDERS[i]![1];
    const keys = ownKeys(holder);
    const descs: PropertyDescriptor[] = [];
    for (let j = 0; j < keys.length; j++) descs[j] = gopd(holder, keys[j]!)!;
    saved[i] = { name, holder, keys, descs };
  }
  const g = globalThis as unknown as Record<string, unknown>;
  const globals: (PropertyDescriptor | undefined)[] = [];
  for (let i = 0; i < GLOBALS.length; i++) globals[i] = gopd(g, GLOBALS[i]!);
  return { saved, globals };
}

function restoreTo(saved: Saved[], globals: (PropertyDescriptor | undefined)[]): string[] {
  const changed: string[] = [];
  const g = globalThis as unknown as Record<string, unknown>;
  // the globals first: `globalThis.Object = …` would otherwise hide the rest
  for (let i = 0; i < GLOBALS.length; i++) {
    const d = globals[i];
    const now = gopd(g, GLOBALS[i]!);
    if (d === undefined || (now !== undefined && now.value === d.value)) continue;
    changed[changed.length] = `globalThis.${GLOBALS[i]!}`;
    defineProperty(g, GLOBALS[i]!, d);
  }
  for (let i = 0; i < saved.length; i++) {
    const { name, holder, keys, descs } = saved[i]!;
    const current = ownKeys(holder);
    for (let j = 0; j < current.length; j++) {
      const k = current[j]!;
      let had = false;
      for (let m = 0; m < keys.length; m++)
        if (keys[m] === k) {
          had = true;
          break;
        }
      if (had) continue;
      changed[changed.length] = `${name}.${Str(k)} (added)`;
      deleteProperty(holder, k);
    }
    for (let j = 0; j < keys.length; j++) {
      const k = keys[j]!;
      const d = descs[j]!;
      const now = gopd(holder, k);
      if (now !== undefined && now.value === d.value && now.get === d.get && now.set === d.set) continue;
      changed[changed.length] = `${name}.${Str(k)}`;
      if (d.configurable || now === undefined) defineProperty(holder, k, d);
      else if (now.writable) (holder as Record<PropertyKey, unknown>)[k] = d.value;
    }
  }
  return changed;
}

/** Takes the snapshot. @internal */
export function snapshotIntrinsics(): IntrinsicsSnapshot {
  const { saved, globals } = take();
  return { restore: () => restoreTo(saved, globals) };
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/**
 * The compiled quick check for a snapshot: `h3.max !== v[17] || …`, one monomorphic load per
 * property (a loop of keyed loads over ~250 properties of 13 shapes costs ~25× more).
 */
function compileQuick(saved: Saved[], globals: (PropertyDescriptor | undefined)[]): { quick: () => boolean; slots: Map<object, Map<PropertyKey, number>>; values: unknown[] } {
  const holders: object[] = [];
  const keys: PropertyKey[] = [];
  const values: unknown[] = [];
  const slots = new Map<object, Map<PropertyKey, number>>();
  const lines: string[] = [];
  for (let i = 0; i < GLOBALS.length; i++) {
    const d = globals[i];
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
  // one local per holder, so every load is on a known object
  const body = lines.join('\n').replace(/h\[(\d+)\]/g, 'h$1');
  const locals = holders.map((_, i) => `const h${i} = h[${i}];`).join('\n');
  const make = new Fn('h', 'k', 'v', `${locals}\nreturn function quick() {\n${body}\nreturn true;\n};`) as (h: object[], k: PropertyKey[], v: unknown[]) => () => boolean;
  return { quick: make(holders, keys, values), slots, values };
}

/** Takes a snapshot the run guard can check cheaply. @internal */
export function guardIntrinsics(): IntrinsicsGuard {
  const { saved, globals } = take();
  const { quick, slots, values } = compileQuick(saved, globals);
  const accessors: { holder: object; key: PropertyKey; d: PropertyDescriptor }[] = [];
  const counted: { holder: object; count: number }[] = [];
  for (let i = 0; i < saved.length; i++) {
    const { holder, keys, descs } = saved[i]!;
    for (let j = 0; j < keys.length; j++) if (!('value' in descs[j]!)) accessors[accessors.length] = { holder, key: keys[j]!, d: descs[j]! };
    if (ADDITIONS_MATTER.has(holder)) counted[counted.length] = { holder, count: keys.length };
  }
  return {
    quick,
    verify() {
      if (!quick()) return false;
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
      }
    },
    restore: () => restoreTo(saved, globals),
  };
}
