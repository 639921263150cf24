/**
 * Stripe's request encoding: `application/x-www-form-urlencoded` (a GET's query string likewise),
 * nested keys as `a[b][c]=v`, arrays as `a[0]=v` (or `a[]=v`). Decoded into nested objects and
 * arrays of strings; types are the OpenAPI document's business (`stripe-openapi.ts`).
 */
export type FormValue = string | FormValue[] | { [key: string]: FormValue };
export type FormObject = { [key: string]: FormValue };

function keyPath(key: string): string[] {
  const head = /^[^[]+/.exec(key)?.[0] ?? key;
  const rest = [...key.slice(head.length).matchAll(/\[([^\]]*)\]/g)].map((match) => match[1]!);
  return [head, ...rest];
}

/** Objects whose keys are all array positions (`0`, `1`, … or appended `[]`) become arrays. */
function arraysOf(value: FormValue): FormValue {
  if (typeof value === "string" || Array.isArray(value)) return value;
  const entries = Object.entries(value).map(([key, inner]) => [key, arraysOf(inner)] as const);
  const positional = entries.length > 0 && entries.every(([key]) => /^\d+$/.test(key));
  if (positional) return [...entries].sort(([a], [b]) => Number(a) - Number(b)).map(([, inner]) => inner);
  return Object.fromEntries(entries);
}

export function decodeForm(body: string): FormObject {
  const root: FormObject = {};
  for (const [rawKey, value] of new URLSearchParams(body)) {
    const path = keyPath(rawKey);
    let node: FormObject = root;
    path.forEach((segment, index) => {
      const last = index === path.length - 1;
      // `a[]=x` appends: give it the next free position.
      const key = segment === "" ? String(Object.keys(node).length) : segment;
      if (last) node[key] = value;
      else {
        const next = node[key];
        node[key] = typeof next === "object" && !Array.isArray(next) ? next : {};
        node = node[key];
      }
    });
  }
  return arraysOf(root) as FormObject;
}
