import type { Deps } from "../../context.ts";
import type { OrganizationScope, Principal } from "../../http/auth.ts";
import { RequestValidationError, ResourceNotFound, fieldIssue } from "../../http/errors.ts";
import { targetOrganization } from "../organizations/organizations.steps.ts";
import type { BenefitCreate } from "./benefit-inputs.schemas.ts";
import { toBenefit } from "./benefits.mapper.ts";
import type { Benefit } from "./benefits.schemas.ts";
import { findBenefit, insertBenefit } from "./benefits.repository.ts";
import { benefitDependentReads } from "./benefit-dependent-reads.ts";

/** Properties as stored: every key of the type's shape present, absent ones null. */
function storedProperties(input: BenefitCreate): Record<string, unknown> {
  if (input.type === "custom") return { note: input.properties.note ?? null };
  if (input.type === "meter_credit") return { ...input.properties };
  const { prefix, expires, activations, limit_usage } = input.properties;
  return { prefix: prefix ?? null, expires: expires ?? null, activations: activations ?? null, limit_usage: limit_usage ?? null };
}

export function createBenefitService(deps: Deps) {
  return {
    async create(principal: Principal, input: BenefitCreate): Promise<Benefit> {
      const organization = await targetOrganization(deps.db, principal, input.organization_id);
      if (
        input.type === "meter_credit" &&
        !(await benefitDependentReads().meterExists(deps.db, organization.id, input.properties.meter_id))
      ) {
        // The hosted service's message; another organization's meter does not exist for this one.
        throw new RequestValidationError([
          fieldIssue(["body", "properties", "meter_id"], "This meter does not exist.", input.properties.meter_id),
        ]);
      }
      const row = await insertBenefit(deps.db, {
        organization_id: organization.id,
        created_at: deps.now(),
        modified_at: null,
        type: input.type,
        description: input.description,
        visibility: input.visibility ?? "public",
        properties: JSON.stringify(storedProperties(input)),
        metadata: JSON.stringify(input.metadata ?? {}),
      });
      return toBenefit(row);
    },

    async get(id: string, allowed: OrganizationScope): Promise<Benefit> {
      const row = await findBenefit(deps.db, id, allowed);
      if (!row) throw new ResourceNotFound();
      return toBenefit(row);
    },
  };
}
export type BenefitService = ReturnType<typeof createBenefitService>;
