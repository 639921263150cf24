import type { MoneyFormat } from "../../values/money-format.ts";
import type { CheckoutPublic } from "../checkouts/checkouts.schemas.ts";

/**
 * Which payment form the page shows, and what its script needs for it: the sandbox's test-card
 * form, Stripe's Payment Element (loaded from `jsUrl` with the publishable key), or none (no
 * processor the page can drive). Each is one implementation of the browser's `PaymentForm`.
 */
export type PaymentFormKind =
  | { readonly kind: "sandbox_card" }
  | { readonly kind: "stripe"; readonly publishableKey: string; readonly jsUrl: string }
  | { readonly kind: "none" };

/** What the server hands the page's script, as JSON inside the page. */
export type CheckoutPageData =
  | {
      view: "form";
      checkout: CheckoutPublic;
      paymentForm: PaymentFormKind;
      /** The parent window's origin when the page is embedded and allowed to talk to it. */
      embedOrigin: string | null;
      /** How amounts in the session's currency are written. */
      money: { currency: string; format: MoneyFormat };
    }
  | { view: "status"; embedOrigin: string | null };

/** The id of the data block with the countries a billing address may name (`CountryChoice[]`), the same on every page. */
export const COUNTRIES_BLOCK_ID = "countries";

/** The event type every message to the embedding window carries (`@polar-sh/checkout`'s EmbedCheckout). */
export const EMBED_MESSAGE_TYPE = "POLAR_CHECKOUT";
