// Settings: what the organization's invoices and receipts print about the seller (registered name and
// postal address) and where it collects tax (its tax registrations), through GET and PATCH
// /v1/organizations/{id}/legal-details. Registrations are replaced as a list: adding or removing one
// sends the whole list, and the API says (422) when the rate table collects nothing under one.
import { currentOrganizationId, request, type ApiResult } from "./api.ts";
import { field, formCard, input, onSubmit, selectField, showError, textField, type Field } from "./forms.ts";
import type { AppData } from "./router.ts";
import { requireScope, requireScopeForForm } from "./scopes.ts";
import { button, errorNotice, fill, h, notice, table } from "./ui.ts";

interface Address {
  line1: string | null;
  line2: string | null;
  postal_code: string | null;
  city: string | null;
  state: string | null;
  country: string;
}

interface TaxRegistration {
  country: string;
  state: string | null;
  scheme: "standard" | "eu_oss";
  number: string | null;
}

export interface LegalDetails {
  registered_name: string | null;
  address: Address | null;
  tax_registrations: TaxRegistration[];
}

const SCHEMES = [
  ["standard", "Registered in this country (or state)"],
  ["eu_oss", "EU One-Stop Shop (VAT of every member state)"],
] as const;

const regionNames = new Intl.DisplayNames(["en"], { type: "region" });
/** `SE` → `Sweden (SE)`; a code Intl does not know stays as it is. */
const countryName = (code: string): string => {
  const name = regionNames.of(code);
  return name && name !== code ? `${name} (${code})` : code;
};

const countryField = (value: string, hint: string, required: boolean): Field =>
  field(
    "Country",
    input({
      type: "text",
      name: "country",
      value,
      required,
      maxlength: "2",
      autocomplete: "off",
      spellcheck: "false",
      class: "code-input",
    }),
    hint,
  );

const send = (changes: Partial<LegalDetails>): Promise<ApiResult<LegalDetails>> =>
  request<LegalDetails>("PATCH", `organizations/${currentOrganizationId()}/legal-details`, changes);

/** The registered name and postal address printed on documents. */
function addressForm(data: AppData, details: LegalDetails): HTMLElement {
  const name = textField(
    "Registered name",
    "registered_name",
    details.registered_name ?? "",
    { maxlength: "256" },
    "Printed instead of the organization's name when set.",
  );
  const line = (label: string, key: Exclude<keyof Address, "country">) =>
    textField(label, key, details.address?.[key] ?? "", { maxlength: "256" });
  const lines = {
    line1: line("Address line 1", "line1"),
    line2: line("Address line 2", "line2"),
    postal_code: line("Postal code", "postal_code"),
    city: line("City", "city"),
    state: line("State or province", "state"),
  };
  const country = countryField(details.address?.country ?? "", "Two letters (ISO 3166-1), like SE or US; empty for no address.", false);
  const fields: Record<string, Field> = { registered_name: name, ...lines, country };
  const parts = formCard(
    "Legal details",
    "Save legal details",
    h("p", { class: "hint" }, "What invoices and receipts print about you, from the next document on (an issued invoice never changes)."),
    name.wrapper,
    h("fieldset", {}, h("legend", {}, "Postal address"), ...Object.values(lines).map((f) => f.wrapper), country.wrapper),
  );
  requireScopeForForm(data, "organizations:write", parts);
  onSubmit(
    parts,
    fields,
    () => {
      const code = country.control.value.trim().toUpperCase();
      const read = (f: Field): string | null => f.control.value.trim() || null;
      const typed = {
        line1: read(lines.line1),
        line2: read(lines.line2),
        postal_code: read(lines.postal_code),
        city: read(lines.city),
        state: read(lines.state),
      };
      if (!code && Object.values(typed).some((value) => value !== null)) {
        showError(parts, fields, { status: 422, message: "Enter the country of the address.", fields: { country: "Enter the country." } });
        return null;
      }
      return send({
        registered_name: name.control.value.trim() || null,
        address: code ? { ...typed, country: code } : null,
      });
    },
    () => "Legal details saved.",
  );
  return parts.form;
}

/** The registrations: listed with a button removing each, and a form adding one. */
function registrationsSection(data: AppData, initial: readonly TaxRegistration[]): HTMLElement {
  let registrations = [...initial];
  const listing = h("div", { "aria-live": "polite" });
  const messages = h("div", { class: "messages", "aria-live": "polite" });
  const removeButton = (registration: TaxRegistration, index: number): HTMLButtonElement => {
    const where = registration.state ?? countryName(registration.country);
    const remove = button("Remove", { class: "button button-danger", "aria-label": `Remove the registration in ${where}` });
    requireScope(data, "organizations:write", remove);
    remove.addEventListener("click", () => {
      remove.disabled = true;
      void send({ tax_registrations: registrations.filter((_, i) => i !== index) }).then((result) => {
        if (!result.ok) {
          remove.disabled = false;
          return messages.replaceChildren(errorNotice(result.error));
        }
        show(result.body.tax_registrations);
        messages.replaceChildren(notice("success", `The registration in ${where} is removed: no more tax is collected under it.`));
      });
    });
    return remove;
  };
  const show = (current: TaxRegistration[]): void => {
    registrations = current;
    fill(
      listing,
      table(
        "Current registrations",
        [
          { label: "Country", cell: (r: TaxRegistration) => countryName(r.country) },
          { label: "State", cell: (r) => r.state ?? "Whole country" },
          { label: "Scheme", cell: (r) => (r.scheme === "eu_oss" ? "EU One-Stop Shop" : "Standard") },
          { label: "Number", cell: (r) => r.number ?? "—" },
          { label: "Remove", cell: (r) => removeButton(r, registrations.indexOf(r)) },
        ],
        current,
        "No registrations: no tax is collected.",
      ),
    );
  };

  const country = countryField("", "Two letters (ISO 3166-1), like SE, GB or CA.", true);
  const state = textField(
    "State or province",
    "state",
    "",
    { maxlength: "10" },
    "Only for a registration of its own (QC for Québec's QST).",
  );
  const scheme = selectField("Scheme", "scheme", SCHEMES, "standard");
  const number = textField("Registration number", "number", "", { maxlength: "64" }, "As your documents should print it.");
  const parts = formCard("Add a registration", "Add registration", country.wrapper, state.wrapper, scheme.wrapper, number.wrapper);
  requireScopeForForm(data, "organizations:write", parts);
  onSubmit(
    parts,
    { country, state, scheme, number },
    () => {
      const added: TaxRegistration = {
        country: country.control.value.trim().toUpperCase(),
        state: state.control.value.trim() || null,
        scheme: scheme.control.value as TaxRegistration["scheme"],
        number: number.control.value.trim() || null,
      };
      return send({ tax_registrations: [...registrations, added] });
    },
    (saved) => {
      parts.form.reset();
      show(saved.tax_registrations);
      return "Registration added: tax is collected under it from the next price computed.";
    },
  );
  show(registrations);
  return h(
    "section",
    { "aria-label": "Tax registrations" },
    h("h2", {}, "Tax registrations"),
    h(
      "p",
      { class: "hint" },
      "Tax is collected only from buyers a registration covers; elsewhere it is 0. The numbers are printed on documents.",
    ),
    messages,
    listing,
    parts.form,
  );
}

/** The legal details' forms, or why they cannot be read. */
export async function legalDetailsSections(data: AppData): Promise<HTMLElement> {
  const answer = await request<LegalDetails>("GET", `organizations/${currentOrganizationId()}/legal-details`);
  if (!answer.ok) return h("section", { "aria-label": "Legal details" }, h("h2", {}, "Legal details"), errorNotice(answer.error));
  return h("div", {}, addressForm(data, answer.body), registrationsSection(data, answer.body.tax_registrations));
}
