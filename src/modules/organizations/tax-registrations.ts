import { isoSubdivision } from "../../schema/subdivisions.ts";
import { RequestValidationError, valueIssue, type ValidationIssue } from "../../http/errors.ts";
import { registrationProblem } from "../../adapters/tax-engine/tax.engine.ts";
import type { OrganizationLegalDetailsUpdate } from "./organization-legal-details.schemas.ts";
import type { TaxRegistration } from "./organizations.table.ts";

type RegistrationInput = NonNullable<OrganizationLegalDetailsUpdate["tax_registrations"]>[number];

/**
 * The registrations as the organization keeps them: states in ISO 3166-2 form, numbers trimmed.
 * Refuses (422, every problem at once) a registration under which the rate table collects nothing
 * (a country or state without a tax of its own in it, a One-Stop Shop outside the EU) and a
 * jurisdiction registered twice.
 */
export function readTaxRegistrations(input: readonly RegistrationInput[], loc: (string | number)[]): TaxRegistration[] {
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  const registrations = input.map((entry, index): TaxRegistration => {
    const registration: TaxRegistration = {
      country: entry.country,
      state: entry.state ? isoSubdivision(entry.country, entry.state) : null,
      scheme: entry.scheme ?? "standard",
      number: entry.number?.trim() || null,
    };
    const problem = registrationProblem(registration);
    const key = `${registration.scheme}/${registration.country}/${registration.state ?? ""}`;
    if (problem) issues.push(valueIssue([...loc, index, registration.state ? "state" : "country"], problem, entry));
    else if (seen.has(key)) issues.push(valueIssue([...loc, index], "This jurisdiction is registered twice.", entry));
    seen.add(key);
    return registration;
  });
  if (issues.length) throw new RequestValidationError(issues);
  return registrations;
}
