import type { TObject } from "@sinclair/typebox";
import { MAX_VALIDATION_ENTRIES } from "../../http/bounded-input.ts";
import { RequestValidationError, fieldIssue, valueIssue, type ValidationIssue } from "../../http/errors.ts";
import { SLICE_SIZE, mapInSlices } from "../../values/slices.ts";
import { compileAcceptanceCheck } from "../../http/acceptance-check.ts";
import { bodyAjv, compileBodyValidator, toValidationIssues, type BodyValidator } from "../../http/validation.ts";
import { EventCreateCustomer, EventCreateExternalCustomer, type EventCreate, type EventsIngest } from "./events.schemas.ts";

/**
 * The ingest body is validated here rather than by the generic route validator, to answer the way
 * the reference does for its union of two event shapes: when an event fits neither, the errors of
 * both shapes are listed, each `loc` naming the shape (`["body","events",3,"EventCreateCustomer","name"]`).
 */

interface Branch {
  readonly title: string;
  readonly keys: ReadonlySet<string>;
  readonly validate: BodyValidator;
  /** True only for an event `validate` accepts unchanged: cheaper, and it builds no errors. */
  readonly accepts: (event: unknown) => boolean;
}

const branch = (schema: TObject): Branch => ({
  title: String(schema.title),
  keys: new Set(Object.keys(schema.properties)),
  validate: compileBodyValidator(schema),
  accepts: compileAcceptanceCheck(schema),
});

const BRANCHES: readonly Branch[] = [branch(EventCreateCustomer), branch(EventCreateExternalCustomer)];
// Keys a value of one shape carries that the other shape ignores.
const OTHER_SHAPE_KEYS: readonly (readonly string[])[] = [
  ["external_customer_id", "external_member_id"],
  ["customer_id", "member_id"],
];

const NOT_EXAMINED = { issues: [] };

const NOT_AN_OBJECT = "Input should be a valid dictionary or object to extract fields from";

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The last timestamp checked and whether it was in the future: a batch mostly carries one timestamp. */
let lastChecked: { value: string; now: number; future: boolean } | undefined;

function inFuture(value: string, now: Date): boolean {
  if (lastChecked?.value !== value || lastChecked.now !== now.getTime()) {
    const parsed = Date.parse(value);
    lastChecked = { value, now: now.getTime(), future: !Number.isNaN(parsed) && parsed > now.getTime() };
  }
  return lastChecked.future;
}

/** Beyond the JSON schema: a timestamp must not be in the future. `loc` as from `toValidationIssues`. */
function timestampIssues(event: Record<string, unknown>, now: Date): ValidationIssue[] {
  const value = event.timestamp;
  return typeof value === "string" && inFuture(value, now)
    ? [valueIssue(["body", "timestamp"], "Timestamp must be in the past.", value)]
    : [];
}

const isDateTime = bodyAjv.compile({ type: "string", format: "date-time" });

/** A timestamp without offset fails the date-time format; the reference names that case. */
function refine(issue: ValidationIssue): ValidationIssue {
  const [, field] = issue.loc;
  if (
    field === "timestamp" &&
    issue.type === "datetime_from_date_parsing" &&
    typeof issue.input === "string" &&
    isDateTime(`${issue.input}Z`)
  ) {
    return { ...issue, type: "timezone_aware", msg: "Input should have timezone info" };
  }
  return issue;
}

function branchIssues(target: Branch, event: unknown, now: Date): ValidationIssue[] {
  if (!isObject(event)) return [fieldIssue(["body"], NOT_AN_OBJECT, event, "model_attributes_type")];
  const schemaIssues = target.validate(event) ? [] : toValidationIssues("body", target.validate.errors ?? []).map(refine);
  const hasTimestampIssue = schemaIssues.some((issue) => issue.loc[1] === "timestamp");
  return hasTimestampIssue ? schemaIssues : [...schemaIssues, ...timestampIssues(event, now)];
}

/** How many of the value's keys a shape knows: the reference's union picks the shape using the most. */
const fieldsSet = (target: Branch, event: Record<string, unknown>) => Object.keys(event).filter((key) => target.keys.has(key)).length;

function choose(index: number, event: Record<string, unknown>): EventCreate {
  for (const key of OTHER_SHAPE_KEYS[index]!) delete event[key];
  return event as EventCreate;
}

/**
 * Validates one event; returns the issues (with the shape in `loc`), or the event reduced to the
 * fields of the shape it matched.
 */
function validateEvent(event: unknown, index: number, now: Date): { issues: ValidationIssue[] } | { event: EventCreate } {
  // A value carrying the required key of one shape only can match no other: one validation is enough.
  if (isObject(event) && "customer_id" in event !== "external_customer_id" in event) {
    const only = "customer_id" in event ? 0 : 1;
    const target = BRANCHES[only]!;
    // The acceptance check passes only events Ajv passes unchanged; on a miss Ajv decides, and words the 422.
    const accepted = target.accepts(event) && !(typeof event.timestamp === "string" && inFuture(event.timestamp, now));
    if (accepted || branchIssues(target, event, now).length === 0) return { event: choose(only, event) };
  }
  const results = BRANCHES.map((target) => branchIssues(target, event, now));
  const matching = BRANCHES.map((_, i) => i).filter((i) => results[i]!.length === 0);
  if (matching.length > 0 && isObject(event)) {
    const chosen = matching.reduce((best, i) => (fieldsSet(BRANCHES[i]!, event) > fieldsSet(BRANCHES[best]!, event) ? i : best));
    return { event: choose(chosen, event) };
  }
  const issues = results.flatMap((list, i) =>
    list.map((issue) => ({ ...issue, loc: ["body", "events", index, BRANCHES[i]!.title, ...issue.loc.slice(1)] })),
  );
  return { issues };
}

/**
 * A Fastify body validator. A batch of at most one slice answers synchronously: `{ value }` or
 * every issue of every event. A larger batch is validated slice by slice across event-loop turns
 * (Fastify's asynchronous validator contract: resolve to pass, reject with the error).
 */
export function createIngestValidator(now: () => Date) {
  return (body: unknown): { value: EventsIngest } | { error: RequestValidationError } | Promise<true> => {
    if (!isObject(body)) {
      return { error: new RequestValidationError([fieldIssue(["body"], NOT_AN_OBJECT, body, "model_attributes_type")]) };
    }
    const events = body.events;
    if (!Array.isArray(events)) {
      const issue: ValidationIssue =
        events === undefined
          ? fieldIssue(["body", "events"], "Field required", body, "missing")
          : fieldIssue(["body", "events"], "Input should be a valid list", events, "list_type");
      return { error: new RequestValidationError([issue]) };
    }
    const at = now();
    // Past the entries a 422 shows, the remaining events are not examined: a batch of millions of
    // bad events costs a pass over them, not millions of issues in memory.
    let found = 0;
    const check = (event: unknown, index: number): ReturnType<typeof validateEvent> => {
      if (found >= MAX_VALIDATION_ENTRIES) return NOT_EXAMINED;
      const result = validateEvent(event, index, at);
      if ("issues" in result) found += result.issues.length;
      return result;
    };
    if (events.length <= SLICE_SIZE) {
      const error = collect(events.map(check));
      return error ? { error } : { value: body as EventsIngest };
    }
    return mapInSlices(events, check).then((results) => {
      const error = collect(results);
      if (error) throw error;
      return true;
    });
  };
}

/** Every issue of every event, or null when the batch is valid. */
function collect(results: ReturnType<typeof validateEvent>[]): RequestValidationError | null {
  const issues = results.flatMap((result) => ("issues" in result ? result.issues : []));
  return issues.length > 0 ? new RequestValidationError(issues) : null;
}
