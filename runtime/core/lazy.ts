/**
 * Values built on first use, not when their module is imported: the zod schemas the loader checks
 * assets with cost a share of `import('animgraph')` to build, and a program that never loads an
 * asset (or loads one later) need not pay it at startup.
 *
 * `lazy(build)` returns a stand-in that builds the value the first time anything reads from it
 * (a property, a method call, `instanceof`) and forwards every operation to it from then on. A
 * stand-in is not the value itself: code that keys a map by a schema looks it up by `unlazy(x)`.
 */
const REAL = new WeakMap<object, () => object>();
let built = 0;

/** How many lazy values have been built in this process (a test checks that importing builds none). */
export function lazyValuesBuilt(): number {
  return built;
}

/** Whether `x` is a stand-in lazy() returned (reading it builds the value). */
export function isLazy(x: unknown): boolean {
  return typeof x === 'object' && x !== null && REAL.has(x);
}

/** The value `x` stands for (building it), or `x` itself when it is no stand-in. */
export function unlazy<T>(x: T): T {
  const real = typeof x === 'object' && x !== null ? REAL.get(x) : undefined;
  return real === undefined ? x : (real() as T);
}

export function lazy<T extends object>(build: () => T): T {
  let value: T | undefined;
  const real = (): T => {
    if (value === undefined) {
      value = build();
      built++;
    }
    return value;
  };
  const proxy = new Proxy({} as T, {
    get: (_, key) => Reflect.get(real(), key),
    set: (_, key, v) => Reflect.set(real(), key, v),
    has: (_, key) => Reflect.has(real(), key),
    ownKeys: () => Reflect.ownKeys(real()),
    // Reported configurable: the stand-in's own target has none of these properties.
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(real(), key);
      return descriptor === undefined ? undefined : { ...descriptor, configurable: true };
    },
    defineProperty: (_, key, descriptor) => Reflect.defineProperty(real(), key, descriptor),
    deleteProperty: (_, key) => Reflect.deleteProperty(real(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
  });
  REAL.set(proxy, real);
  return proxy;
}
