import { toBenefitGrantFields } from "../benefits/benefit-grants.mapper.ts";
import type { GrantEmbeddedRow } from "../benefits/benefits.steps.ts";
import { toBenefit } from "../benefits/benefits.mapper.ts";
import type { Benefit } from "../benefits/benefits.schemas.ts";
import type { CheckoutOrganization } from "../organizations/organization-views.schemas.ts";
import type { BenefitSubscriber, CustomerBenefitGrant } from "./portal-benefit-grants.schemas.ts";
import type { CustomerPortalCustomer } from "./portal-customers.schemas.ts";

/** What a customer may see of a benefit's configuration, per type. */
function subscriberProperties(benefit: Benefit): BenefitSubscriber["properties"] {
  switch (benefit.type) {
    case "license_keys":
      return benefit.properties;
    case "custom":
      return { note: benefit.properties.note };
    case "discord":
      return { guild_id: benefit.properties.guild_id };
    case "github_repository":
      return { repository_owner: benefit.properties.repository_owner, repository_name: benefit.properties.repository_name };
    case "downloadables":
      return { active_files: benefit.properties.files.filter((id) => !benefit.properties.archived[id]) };
    case "meter_credit":
      return { units: benefit.properties.units, rollover: benefit.properties.rollover, meter_id: benefit.properties.meter_id };
    case "feature_flag":
    case "slack_shared_channel":
      return {};
  }
}

/** A grant as its customer sees it: the seller on its benefit, the customer's own view of itself. */
export function toCustomerBenefitGrant(
  row: GrantEmbeddedRow,
  customer: CustomerPortalCustomer,
  organization: CheckoutOrganization,
): CustomerBenefitGrant {
  const { customer: _customer, benefit: stored, ...grant } = row;
  if (!stored) throw new Error(`benefit grant ${row.id} without its benefit`);
  const benefit = toBenefit(stored);
  return {
    ...toBenefitGrantFields(grant),
    customer,
    benefit: {
      id: benefit.id,
      created_at: benefit.created_at,
      modified_at: benefit.modified_at,
      type: benefit.type,
      description: benefit.description,
      selectable: benefit.selectable,
      deletable: benefit.deletable,
      is_deleted: benefit.is_deleted,
      organization_id: benefit.organization_id,
      metadata: benefit.metadata,
      organization,
      properties: subscriberProperties(benefit),
    },
    // The variant is the benefit's type; TypeScript cannot tie the two unions' members together.
  } as CustomerBenefitGrant;
}
