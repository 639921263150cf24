import { isoFrom, isoFromOrNull } from "../../db/jsonified.ts";
import type { BenefitType } from "../benefits/benefits.schemas.ts";
import { toCustomer } from "../customers/customers.mapper.ts";
import type { CustomerStateRow } from "./customer-state.repository.ts";
import type {
  CustomerState,
  CustomerStateBenefitGrant,
  CustomerStateMeter,
  CustomerStateSubscription,
  CustomerStateSubscriptionMeter,
} from "./customer-state.schemas.ts";

type SubscriptionJson = CustomerStateRow["active_subscriptions"][number];
type GrantJson = CustomerStateRow["granted_benefits"][number];

// Nested rows come through JSON aggregation, so their timestamps are text (isoFrom takes either).
const toStateSubscription = (row: SubscriptionJson, meters: readonly CustomerStateSubscriptionMeter[]): CustomerStateSubscription => ({
  id: row.id,
  created_at: isoFrom(row.created_at),
  modified_at: isoFromOrNull(row.modified_at),
  custom_field_data: row.custom_field_data,
  metadata: row.metadata,
  status: row.status,
  amount: row.amount,
  currency: row.currency,
  recurring_interval: row.recurring_interval,
  current_period_start: isoFrom(row.current_period_start),
  current_period_end: isoFrom(row.current_period_end),
  trial_start: isoFromOrNull(row.trial_start),
  trial_end: isoFromOrNull(row.trial_end),
  cancel_at_period_end: row.cancel_at_period_end,
  canceled_at: isoFromOrNull(row.canceled_at),
  started_at: isoFromOrNull(row.started_at),
  ends_at: isoFromOrNull(row.ends_at),
  product_id: row.product_id,
  discount_id: row.discount_id,
  meters: [...meters],
});

const toStateGrant = (row: GrantJson): CustomerStateBenefitGrant => ({
  id: row.id,
  created_at: isoFrom(row.created_at),
  modified_at: isoFromOrNull(row.modified_at),
  granted_at: isoFrom(row.granted_at),
  benefit_id: row.benefit_id,
  benefit_type: row.benefit_type as BenefitType,
  benefit_metadata: row.benefit_metadata,
  // Grants store what they produced in the reference's shape (a license key's id and display key).
  properties: row.properties,
});

/**
 * A customer's state: the customer, its subscriptions giving access (each with its meters, by
 * subscription id), its granted benefits, its meters.
 */
export function toCustomerState(
  { active_subscriptions, granted_benefits, ...customer }: CustomerStateRow,
  meters: readonly CustomerStateMeter[],
  subscriptionMeters: ReadonlyMap<string, readonly CustomerStateSubscriptionMeter[]>,
): CustomerState {
  const state = {
    active_subscriptions: active_subscriptions.map((row) => toStateSubscription(row, subscriptionMeters.get(row.id) ?? [])),
    granted_benefits: granted_benefits.map(toStateGrant),
    active_meters: [...meters],
  };
  return { ...toCustomer(customer), ...state };
}
