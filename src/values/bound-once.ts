/**
 * A value a module declares and the composition root (services.ts) supplies once for the process:
 * what a module reads of the modules built on it (docs/decisions.md, "Reads of the modules built
 * above"). Asking before it is bound is a wiring mistake, said with `what`.
 */
export function boundOnce<T>(what: string): { bind: (value: T) => void; get: () => T } {
  let bound: T | undefined;
  return {
    bind: (value) => {
      bound = value;
    },
    get: () => {
      if (bound === undefined) throw new Error(`${what} read before services.ts bound their dependent reads`);
      return bound;
    },
  };
}
