import type { FastifyInstance } from "fastify";
import { RequestValidationError, fieldIssue } from "./errors.ts";

/**
 * Deepest nesting of arrays and objects a JSON body may have. Our deepest schema (metadata inside
 * an event inside a batch) needs four levels; 64 leaves room for any legitimate body while keeping
 * every recursive walk over it (validation, error entries, logging) far from the stack's limit.
 */
export const MAX_JSON_DEPTH = 64;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const BACKSLASH = 0x5c;

/**
 * The offset of the first character that opens a container beyond `limit` levels, or -1. One pass
 * over the text, no recursion, strings skipped: cheap next to `JSON.parse` and run before it. The
 * strings, most of a body, are skipped by `indexOf` (native) rather than character by character.
 */
export function nestingOverflowAt(text: string, limit = MAX_JSON_DEPTH): number {
  let depth = 0;
  for (let i = 0; i < text.length;) {
    const quote = text.indexOf('"', i);
    const structure = quote === -1 ? text.length : quote;
    for (; i < structure; i++) {
      const code = text.charCodeAt(i);
      if (code === OPEN_BRACE || code === OPEN_BRACKET) {
        depth++;
        if (depth > limit) return i;
      } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
        depth--;
      }
    }
    if (quote === -1) break;
    i = stringEnd(text, quote + 1) + 1;
  }
  return -1;
}

/** The offset of the quote closing a string whose text starts at `from` (or the text's length): the first quote after an even run of backslashes. */
function stringEnd(text: string, from: number): number {
  for (let quote = text.indexOf('"', from); quote !== -1; quote = text.indexOf('"', quote + 1)) {
    let backslashes = 0;
    while (quote - backslashes - 1 >= from && text.charCodeAt(quote - backslashes - 1) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
  }
  return text.length;
}

/**
 * JSON bodies: routes without a body (POST /v1/orders/{id}/invoice, …) accept an empty request sent
 * with `Content-Type: application/json`, as the official SDK sends it; routes with a body still
 * refuse an empty one (422 at `["body"]`). A body nested deeper than {@link MAX_JSON_DEPTH} is refused
 * before it is parsed (422 `json_invalid`, like malformed JSON). Parsing itself stays Fastify's,
 * with its prototype-poisoning protection.
 */
export function acceptEmptyJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const text = body.toString();
    if (text === "" && request.routeOptions.schema?.body === undefined) {
      done(null, undefined);
      return;
    }
    const overflow = nestingOverflowAt(text);
    if (overflow >= 0) {
      const reason = `nesting deeper than ${MAX_JSON_DEPTH} levels`;
      done(new RequestValidationError([fieldIssue(["body", overflow], "JSON decode error", {}, "json_invalid", { error: reason })]));
      return;
    }
    void parseJson(request, text, done);
  });
}
