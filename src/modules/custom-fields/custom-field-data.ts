import { quoteList } from "../../http/validation.ts";
import { fieldIssue, missingIssue, type ValidationIssue } from "../../http/errors.ts";
import type { AttachedCustomField, CustomField } from "./custom-fields.schemas.ts";

/** Values of custom fields keyed by slug, as sessions, orders and subscriptions store them. */
export type CustomFieldValue = string | number | boolean | null;
export type CustomFieldData = Record<string, CustomFieldValue>;

const INT32 = { min: -2147483648, max: 2147483647 };

type Checked = { value: CustomFieldValue } | { problem: Omit<ValidationIssue, "loc" | "input"> };
const problem = (type: string, msg: string, ctx?: Record<string, unknown>): Checked => ({
  problem: { type, msg, ...(ctx ? { ctx } : {}) },
});

function checkText(field: Extract<CustomField, { type: "text" }>, value: unknown): Checked {
  if (typeof value !== "string") return problem("string_type", "Input should be a valid string");
  const { min_length: min, max_length: max } = field.properties;
  const length = [...value].length;
  if (min !== undefined && length < min)
    return problem("string_too_short", `String should have at least ${min} character${min === 1 ? "" : "s"}`, { min_length: min });
  if (max !== undefined && length > max)
    return problem("string_too_long", `String should have at most ${max} character${max === 1 ? "" : "s"}`, { max_length: max });
  return { value };
}

function checkNumber(field: Extract<CustomField, { type: "number" }>, value: unknown): Checked {
  let number: number;
  if (typeof value === "number") number = value;
  else if (typeof value === "string" && /^\s*[+-]?\d+\s*$/.test(value)) number = Number(value);
  else if (typeof value === "string")
    return problem("int_parsing", "Input should be a valid integer, unable to parse string as an integer");
  else return problem("int_type", "Input should be a valid integer");
  if (!Number.isInteger(number)) return problem("int_from_float", "Input should be a valid integer, got a number with a fractional part");
  const ge = field.properties.ge ?? INT32.min;
  const le = field.properties.le ?? INT32.max;
  if (number < ge) return problem("greater_than_equal", `Input should be greater than or equal to ${ge}`, { ge });
  if (number > le) return problem("less_than_equal", `Input should be less than or equal to ${le}`, { le });
  return { value: number };
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** The UTC calendar day of an ISO date, an ISO date-time or a Unix timestamp; null when it is none. */
function calendarDay(value: unknown): string | null {
  let instant: Date;
  if (typeof value === "number") instant = new Date(value * 1000);
  else if (typeof value === "string" && DATE_ONLY.test(value)) instant = new Date(`${value}T00:00:00Z`);
  else if (typeof value === "string" && DATE_TIME.test(value)) {
    const zoned = /(Z|[+-]\d{2}:?\d{2})$/i.test(value) ? value : `${value}Z`;
    instant = new Date(zoned.replace(" ", "T"));
  } else return null;
  if (Number.isNaN(instant.getTime())) return null;
  const day = instant.toISOString().slice(0, 10);
  // A date that does not exist (2026-02-30) rolls over in Date; refuse it instead.
  return typeof value === "string" && DATE_ONLY.test(value) && day !== value ? null : day;
}

/** A date bound is a Unix timestamp; 0 means no bound. */
const boundDay = (timestamp: number | undefined): string | null =>
  timestamp === undefined || timestamp === 0 ? null : new Date(timestamp * 1000).toISOString().slice(0, 10);

function checkDate(field: Extract<CustomField, { type: "date" }>, value: unknown): Checked {
  if (typeof value !== "string" && typeof value !== "number") return problem("date_type", "Input should be a valid date");
  const day = calendarDay(value);
  if (day === null) return problem("date_parsing", "Input should be a valid date in the format YYYY-MM-DD");
  const ge = boundDay(field.properties.ge);
  const le = boundDay(field.properties.le);
  if (ge !== null && day < ge) return problem("greater_than_equal", `Input should be greater than or equal to ${ge}`, { ge });
  if (le !== null && day > le) return problem("less_than_equal", `Input should be less than or equal to ${le}`, { le });
  return { value: `${day}T00:00:00` };
}

const TRUE_TEXT = new Set(["true", "1", "yes", "on", "t", "y"]);
const FALSE_TEXT = new Set(["false", "0", "no", "off", "f", "n"]);

function checkCheckbox(required: boolean, value: unknown): Checked {
  let checked: boolean;
  if (typeof value === "boolean") checked = value;
  else if (value === 0 || value === 1) checked = value === 1;
  else if (typeof value === "string" && (TRUE_TEXT.has(value.toLowerCase()) || FALSE_TEXT.has(value.toLowerCase())))
    checked = TRUE_TEXT.has(value.toLowerCase());
  else return problem("bool_parsing", "Input should be a valid boolean, unable to interpret input");
  // A required checkbox is one the buyer must tick (terms, consent): false is no answer.
  if (required && !checked) return problem("literal_error", "Input should be True", { expected: "True" });
  return { value: checked };
}

function checkSelect(field: Extract<CustomField, { type: "select" }>, value: unknown): Checked {
  const values = field.properties.options.map((option) => option.value);
  if (typeof value === "string" && values.includes(value)) return { value };
  const expected = quoteList(values);
  return problem("literal_error", `Input should be ${expected}`, { expected });
}

/** `complete`: the value is final (confirm), so a required checkbox must be ticked. */
function checkValue(attached: AttachedCustomField, value: unknown, complete: boolean): Checked {
  const field = attached.custom_field;
  switch (field.type) {
    case "text":
      return checkText(field, value);
    case "number":
      return checkNumber(field, value);
    case "date":
      return checkDate(field, value);
    case "checkbox":
      return checkCheckbox(attached.required && complete, value);
    case "select":
      return checkSelect(field, value);
  }
}

export interface CustomFieldDataCheck {
  /** The accepted values of the attached fields given (unknown keys are dropped). */
  data: CustomFieldData;
  /** One entry per refused value, at `[...loc, slug]`. */
  issues: ValidationIssue[];
}

/**
 * Checks values against the fields attached to the selected product. Edits check what they carry
 * (`complete: false`); confirming (`complete: true`) also asks for every required field and
 * answers every attached field, an unticked checkbox as false and other blanks as null.
 */
export function checkCustomFieldData(
  attached: readonly AttachedCustomField[],
  input: Readonly<Record<string, unknown>>,
  options: { complete: boolean; loc: (string | number)[] },
): CustomFieldDataCheck {
  const data: CustomFieldData = {};
  const issues: ValidationIssue[] = [];
  for (const field of attached) {
    const slug = field.custom_field.slug;
    const given = Object.hasOwn(input, slug) ? input[slug] : undefined;
    const loc = [...options.loc, slug];
    if (given === undefined || given === null) {
      if (options.complete && field.required) issues.push(missingIssue(loc));
      else if (options.complete) data[slug] = field.custom_field.type === "checkbox" ? false : null;
      else if (given === null) data[slug] = null;
      continue;
    }
    const checked = checkValue(field, given, options.complete);
    if ("value" in checked) data[slug] = checked.value;
    else issues.push(fieldIssue(loc, checked.problem.msg, given, checked.problem.type, checked.problem.ctx));
  }
  return { data, issues };
}
