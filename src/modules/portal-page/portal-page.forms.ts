import { InputCountryCodes, type AddressInput, type StoredAddress } from "../../schema/address.ts";
import { RequestValidationError, type ValidationIssue } from "../../http/errors.ts";
import type { CustomerPortalCustomer } from "../customer-portal/portal-customers.schemas.ts";

/** The billing details form, as posted: every value a string, empty when left blank. */
export interface BillingForm {
  billing_name: string;
  country: string;
  line1: string;
  line2: string;
  postal_code: string;
  city: string;
  state: string;
  tax_id: string;
}

/** Messages to show under fields, by the field's name. */
export type FieldErrors = Partial<Record<keyof BillingForm, string>>;

const FIELDS: readonly (keyof BillingForm)[] = ["billing_name", "country", "line1", "line2", "postal_code", "city", "state", "tax_id"];
const MAX_LENGTH: Record<keyof BillingForm, number> = {
  billing_name: 256,
  country: 2,
  line1: 256,
  line2: 256,
  postal_code: 256,
  city: 256,
  state: 256,
  tax_id: 64,
};

/** Whatever was posted, read as the billing form: unknown keys ignored, missing ones empty. */
export function readBillingForm(body: unknown): BillingForm {
  const posted = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  const read = (key: keyof BillingForm) => (typeof posted[key] === "string" ? posted[key].trim() : "");
  return Object.fromEntries(FIELDS.map((key) => [key, read(key)])) as unknown as BillingForm;
}

export const billingFormFrom = (
  name: string | null,
  address: StoredAddress | CustomerPortalCustomer["billing_address"] | null,
  taxId: string | null,
): BillingForm => ({
  billing_name: name ?? "",
  country: address?.country ?? "",
  line1: address?.line1 ?? "",
  line2: address?.line2 ?? "",
  postal_code: address?.postal_code ?? "",
  city: address?.city ?? "",
  state: address?.state ?? "",
  tax_id: taxId ?? "",
});

const orNull = (value: string): string | null => (value === "" ? null : value);

/**
 * The billing name and address the form holds, checked as the API's schemas check them (lengths,
 * the country's code); the services check the rest (a US or CA state). `required`: an invoice needs
 * both a name and a country.
 */
export function billingDetails(
  form: BillingForm,
  required: boolean,
): { billing_name: string | null; billing_address: AddressInput | null } {
  const issues: ValidationIssue[] = [];
  for (const key of FIELDS)
    if (form[key].length > MAX_LENGTH[key])
      issues.push({ loc: ["body", key], msg: `Use at most ${MAX_LENGTH[key]} characters.`, type: "string_too_long" });
  const hasAddress = [form.country, form.line1, form.line2, form.postal_code, form.city, form.state].some((value) => value !== "");
  if (form.country === "" ? hasAddress || required : !InputCountryCodes.includes(form.country as never))
    issues.push({ loc: ["body", "country"], msg: "Select a country.", type: "missing" });
  if (required && form.billing_name === "")
    issues.push({ loc: ["body", "billing_name"], msg: "Enter the name the invoice is made out to.", type: "missing" });
  if (issues.length) throw new RequestValidationError(issues);
  const address = hasAddress
    ? ({
        country: form.country,
        line1: orNull(form.line1),
        line2: orNull(form.line2),
        postal_code: orNull(form.postal_code),
        city: orNull(form.city),
        state: orNull(form.state),
      } as AddressInput)
    : null;
  return { billing_name: orNull(form.billing_name), billing_address: address };
}

/** A refusal's issues under the fields they name (`["body", "billing_address", "state"]` → `state`); the rest as one message. */
export function fieldErrorsOf(error: RequestValidationError): { errors: FieldErrors; rest: string | null } {
  const errors: FieldErrors = {};
  const rest: string[] = [];
  for (const issue of error.issues) {
    const name = [...issue.loc].reverse().find((part): part is keyof BillingForm => FIELDS.includes(part as keyof BillingForm));
    if (name) errors[name] ??= issue.msg;
    else rest.push(issue.msg);
  }
  return { errors, rest: rest.length ? rest.join(" ") : null };
}
