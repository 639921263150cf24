import type { Deps } from "../../context.ts";
import { RequestValidationError, ResourceNotFound, fieldIssue } from "../../http/errors.ts";
import type { Metadata } from "../../schema/primitives.ts";
import { bodyAjv } from "../../http/validation.ts";
import type { CheckoutCreate } from "../checkouts/checkout-inputs.schemas.ts";
import type { CheckoutService } from "../checkouts/checkouts.steps.ts";
import { checkCustomFieldData } from "../custom-fields/custom-fields.steps.ts";
import { toAttachedCustomField } from "../custom-fields/custom-fields.mapper.ts";
import { findLiveDiscount } from "../discounts/discounts.steps.ts";
import type { ProductWithRelationsJson } from "../products/products.mapper.ts";
import { findCheckoutLink } from "./checkout-links.repository.ts";
import type { CheckoutLinkRow } from "./checkout-links.table.ts";

/** Query parameters the link reads and does not pass on to the checkout page. */
const CONSUMED = new Set(["product_id", "amount", "customer_email", "customer_name", "discount_code", "locale", "embed_origin"]);
/** Tracking parameters copied into the session's metadata (unless the link's has the key), and passed on. */
const TRACKING = ["reference_id", "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content"];
const CUSTOM_FIELD_PREFIX = "custom_field_data.";
const MAX_AMOUNT = 99_999_999;
const isEmail = bodyAjv.compile({ type: "string", format: "email", maxLength: 320 });
const ORIGIN = /^https?:\/\/[^/\s?#]{1,2000}$/;

/** The link's seat count, locking the session (min = max), when the product's seat tiers still admit it. */
function seatLock(link: CheckoutLinkRow, product: ProductWithRelationsJson): Pick<CheckoutCreate, "seats" | "min_seats" | "max_seats"> {
  const tiers = product.prices.find((price) => price.amount_type === "seat_based")?.seat_tiers;
  if (link.seats === null || !tiers?.length) return {};
  const low = tiers[0]?.min_seats ?? 1;
  const high = tiers[tiers.length - 1]?.max_seats ?? Number.POSITIVE_INFINITY;
  return link.seats >= low && link.seats <= high ? { seats: link.seats, min_seats: link.seats, max_seats: link.seats } : {};
}

/** The tracking parameters as metadata, under the link's own metadata (which wins on a shared key). */
function sessionMetadata(link: CheckoutLinkRow, query: URLSearchParams): Metadata {
  const tracking = TRACKING.flatMap((key) => {
    const value = query.get(key)?.slice(0, 500);
    return value && !(key in link.metadata) ? [[key, value] as const] : [];
  });
  return { ...link.metadata, ...Object.fromEntries(tracking) };
}

/** The visitor's prefill: each value is taken when valid and ignored otherwise, never refused. */
function prefill(query: URLSearchParams): Partial<CheckoutCreate> {
  const amount = Math.trunc(Number(query.get("amount") ?? Number.NaN));
  const email = query.get("customer_email")?.trim();
  const name = query.get("customer_name")?.trim();
  const origin = query.get("embed_origin");
  return {
    ...(Number.isFinite(amount) && amount >= 0 && amount <= MAX_AMOUNT ? { amount } : {}),
    ...(email && isEmail(email) ? { customer_email: email } : {}),
    ...(name && name.length <= 256 ? { customer_name: name } : {}),
    // Checkout localization is not offered: a requested locale is English.
    ...(query.has("locale") ? { locale: "en" } : {}),
    ...(origin && ORIGIN.test(origin) ? { embed_origin: origin } : {}),
  };
}

/** A checkout link's public side: each visit opens a new session from the link. */
export function createCheckoutLinkRedirect(deps: Deps, checkouts: CheckoutService) {
  return {
    /**
     * Opens a session for a visitor of the link and returns where to send them: the session's page,
     * with the query parameters the link did not consume passed on.
     */
    async open(clientSecret: string, query: URLSearchParams): Promise<string> {
      const link = await findCheckoutLink(deps.db, { clientSecret }, null);
      if (!link) throw new ResourceNotFound();
      const offered = link.products.filter((product) => !product.is_archived && product.visibility !== "draft");
      const chosen = offered.find((product) => product.id === query.get("product_id")) ?? offered[0];
      if (!chosen) throw new RequestValidationError([fieldIssue(["body", "products"], "No valid products.", null)]);

      const attached = chosen.attached_custom_fields.map(toAttachedCustomField);
      const given = Object.fromEntries(
        attached.flatMap(({ custom_field: { slug } }) => {
          const value = query.get(`${CUSTOM_FIELD_PREFIX}${slug}`);
          return value === null ? [] : [[slug, value]];
        }),
      );
      const customFieldData = checkCustomFieldData(attached, given, { complete: false, loc: [] }).data;
      const code = query.get("discount_code")?.trim();
      // A code applies even where the link disallows codes, in place of the link's discount.
      const coded = code ? await findLiveDiscount(deps.db, link.organization_id, { code }) : undefined;

      const checkout = await checkouts.create(
        {
          products: [chosen.id, ...offered.filter((product) => product !== chosen).map((product) => product.id)],
          allow_discount_codes: link.allow_discount_codes,
          require_billing_address: link.require_billing_address,
          allow_trial: true,
          trial_interval: link.trial_interval,
          trial_interval_count: link.trial_interval_count,
          success_url: link.success_url,
          return_url: link.return_url,
          discount_id: coded?.id ?? link.discount_id,
          metadata: sessionMetadata(link, query),
          custom_field_data: customFieldData,
          ...seatLock(link, chosen),
          ...prefill(query),
        },
        [link.organization_id],
        { prefill: true },
      );

      const consumed = new Set([...CONSUMED, ...Object.keys(customFieldData).map((slug) => `${CUSTOM_FIELD_PREFIX}${slug}`)]);
      const passed = new URLSearchParams([...query].filter(([key]) => !consumed.has(key)));
      return passed.size ? `${checkout.url}?${passed.toString()}` : checkout.url;
    },
  };
}
export type CheckoutLinkRedirect = ReturnType<typeof createCheckoutLinkRedirect>;
