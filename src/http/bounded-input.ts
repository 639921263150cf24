/**
 * What a 422 entry may echo of the input. The entries name what was wrong by `loc`, `type` and
 * `msg`; `input` is a courtesy, so a hostile body (huge arrays, long keys and strings) cannot make
 * the answer larger or slower than the request. Within these bounds the input is echoed as sent.
 */
export const INPUT_ECHO_LIMITS = {
  /** Containers below this many levels are summarized (`"[array of 3 items]"`, `"{object of 2 keys}"`). */
  depth: 8,
  /** Items of an array or keys of an object echoed; the rest counted in a last `"… N more"` item or key. */
  entries: 100,
  /** Characters of a string or a key echoed; longer ones are cut and end with `…`. */
  stringLength: 1_000,
  /** Characters (about) of one entry's whole echo; beyond it, containers are summarized and strings shown as `…`. */
  total: 20_000,
} as const;

/** At most this many entries in one 422 (the first ones found); a client fixing them meets the rest next. */
export const MAX_VALIDATION_ENTRIES = 100;

const cut = (text: string): string =>
  text.length > INPUT_ECHO_LIMITS.stringLength ? `${text.slice(0, INPUT_ECHO_LIMITS.stringLength)}…` : text;

const summary = (value: object): string =>
  Array.isArray(value) ? `[array of ${value.length} items]` : `{object of ${Object.keys(value).length} keys}`;

/** `value` within {@link INPUT_ECHO_LIMITS}; the walk never goes deeper than the depth limit. */
export function boundInput(value: unknown): unknown {
  let budget: number = INPUT_ECHO_LIMITS.total;
  const walk = (current: unknown, depth: number): unknown => {
    if (typeof current === "string") {
      const text = budget > 0 ? cut(current) : "…";
      budget -= text.length;
      return text;
    }
    if (typeof current !== "object" || current === null) {
      budget -= 8;
      return current;
    }
    if (depth >= INPUT_ECHO_LIMITS.depth || budget <= 0) return summary(current);
    budget -= 2;
    if (Array.isArray(current)) {
      const items = current.slice(0, INPUT_ECHO_LIMITS.entries).map((item) => walk(item, depth + 1));
      if (current.length > items.length) items.push(`… ${current.length - items.length} more items`);
      return items;
    }
    const keys = Object.keys(current);
    const entries: [string, unknown][] = [];
    for (const key of keys.slice(0, INPUT_ECHO_LIMITS.entries)) {
      const shownKey = cut(key);
      budget -= shownKey.length;
      entries.push([shownKey, walk((current as Record<string, unknown>)[key], depth + 1)]);
    }
    if (keys.length > entries.length) entries.push(["…", `${keys.length - entries.length} more keys`]);
    return Object.fromEntries(entries);
  };
  return walk(value, 0);
}
