import type { InjectOptions, LightMyRequestResponse } from "fastify";
import { expect, it } from "vitest";

export interface BadInputCase {
  name: string;
  request: () => InjectOptions & { token?: string | null };
  status: number;
  /** The `error` of the body; 422 cases default to RequestValidationError. */
  error?: string;
  /** For 422: a `loc` that one entry of `detail` must have. */
  loc?: (string | number)[];
}

type Send = (options: InjectOptions & { token?: string | null }) => Promise<LightMyRequestResponse>;

/**
 * One test per bad input: the documented status and body shape, never a 5xx, and (through
 * `unchanged`) proof that nothing was written.
 */
export function badInputTable(send: () => Send, cases: BadInputCase[], unchanged?: () => Promise<void>): void {
  for (const testCase of cases) {
    it(`answers ${testCase.status} for ${testCase.name}`, async () => {
      const response = await send()(testCase.request());
      expect(response.statusCode, response.body).toBe(testCase.status);
      const body = response.json<{ error?: string; detail?: unknown }>();
      if (testCase.status === 422) {
        expect(body.error).toBe(testCase.error ?? "RequestValidationError");
        expect(Array.isArray(body.detail)).toBe(true);
        const detail = body.detail as { loc: unknown[]; msg: unknown; type: unknown }[];
        expect(detail.length).toBeGreaterThan(0);
        for (const entry of detail) {
          expect(Array.isArray(entry.loc)).toBe(true);
          expect(typeof entry.msg).toBe("string");
          expect(typeof entry.type).toBe("string");
        }
        if (testCase.loc) expect(detail.map((d) => d.loc)).toContainEqual(testCase.loc);
      } else if (testCase.error) {
        expect(body.error).toBe(testCase.error);
      }
      if (unchanged) await unchanged();
    });
  }
}
