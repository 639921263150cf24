import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyRequest } from "fastify";
import { sizeReadable } from "../../values/byte-sizes.ts";
import { moneyFormat } from "../../values/money-format.ts";
import { ResourceNotFound } from "../../http/errors.ts";
import { TokenPrefix } from "../../values/tokens.ts";
import type { CheckoutClientService } from "../checkouts/checkouts.steps.ts";
import { ExpiredCheckoutError } from "../checkouts/checkouts.errors.ts";
import type { CheckoutPublic } from "../checkouts/checkouts.schemas.ts";
import { sendHtml, themeOf, type PageAssets, type Theme } from "../../pages/html-page.ts";
import { sendAsset, type WebAssets } from "../../pages/web-assets.ts";
import { embedScriptFor } from "./checkout-page.assets.ts";
import type { PaymentFormSetup } from "./payment-form.ts";
import { checkoutFormPage, purchaseCompletePage, statusPage, type PurchaseView } from "./checkout-page.render.ts";
import { documentLanguage } from "../../documents/language.ts";
import { customerPortalUrl } from "../../flows/customer-email-parties.ts";
import type { CheckoutPurchase } from "../../flows/purchase-summary.ts";

export interface CheckoutPageOptions {
  /** Where `url` points (`CHECKOUT_BASE_URL`): its origin is the one the embed script trusts. */
  checkoutBaseUrl: string;
  paymentForm: PaymentFormSetup;
  /**
   * The origins a product's media loads from: its `public_url`'s (`PUBLIC_BASE_URL`, which may not
   * be the page's) and the blob store's it redirects to (an S3 bucket's host).
   */
  mediaOrigins: readonly string[];
  /** The purchase a succeeded session made (`flows/purchase-summary.ts`), null before its order exists. */
  purchaseOf: (checkout: CheckoutPublic) => Promise<CheckoutPurchase | null>;
}

/** The purchase as the page prints it: English words, the buyer's locale's formats (as its email). */
function purchaseView(purchase: CheckoutPurchase, locale: string | null): PurchaseView {
  const language = documentLanguage(locale);
  const { order } = purchase;
  const money = (amount: number) => language.money(amount, order.currency);
  const { words } = language;
  return {
    description: order.description,
    receiptNumber: order.receipt_number,
    lines: [
      ...purchase.items.map((item) => [item.label, money(item.amount)] as const),
      [words.subtotal, money(order.subtotal_amount)],
      ...(order.discount_amount ? [[words.discount, `−${money(order.discount_amount)}`] as const] : []),
      ...(order.tax_amount ? [[words.tax, money(order.tax_amount)] as const] : []),
      [words.total, money(order.total_amount)],
    ],
    benefits: purchase.benefits.map(({ description, licenseKey: key, files }) => ({
      description,
      licenseKey: key?.key ?? null,
      terms: key
        ? [
            key.activationLimit === null ? "Unlimited activations" : `Up to ${language.number(key.activationLimit)} activations`,
            ...(key.expiresAt ? [`Valid until ${language.date(key.expiresAt)}`] : []),
          ]
        : [],
      files: files.map((file) => ({ ...file, size: sizeReadable(file.size) })),
    })),
    documents: purchase.documents,
  };
}

interface PageQuery {
  theme: Theme;
  /** The page's inline script and styles. */
  assets: PageAssets;
  /** The parent window's origin, as `?embed=true&embed_origin=…` names it. */
  embedOrigin: string | null;
}

const MAX_SECRET_LENGTH = 256;

/** A well-formed http(s) origin, exactly as `window.location.origin` writes it, else null. */
function originOf(value: unknown): string | null {
  if (typeof value !== "string" || value.length > 2083) return null;
  try {
    const url = new URL(value);
    return (url.protocol === "https:" || url.protocol === "http:") && url.origin === value ? value : null;
  } catch {
    return null;
  }
}

function pageQuery(query: unknown, assets: PageAssets): PageQuery {
  const params = typeof query === "object" && query !== null ? (query as Record<string, unknown>) : {};
  return { theme: themeOf(params), assets, embedOrigin: params.embed === "true" ? originOf(params.embed_origin) : null };
}

/**
 * The page may be framed by, and talk to, the origin the query names — only when it is the one the
 * session was created for, if the merchant set one.
 */
const embedOriginFor = (query: PageQuery, checkout: CheckoutPublic | null): string | null =>
  query.embedOrigin !== null && (checkout?.embed_origin == null || checkout.embed_origin === query.embedOrigin) ? query.embedOrigin : null;

/**
 * The hosted checkout page at the session's `url`, its confirmation page (the default
 * `success_url`), their script and styles, and the embed script storefronts load. The page
 * reads and changes the session only through the public client routes.
 */
export const checkoutPageRoutes =
  (client: CheckoutClientService, webAssets: WebAssets, options: CheckoutPageOptions): FastifyPluginAsyncTypebox =>
  async (app) => {
    const queryOf = async (request: FastifyRequest) => pageQuery(request.query, await webAssets.forPage("checkout-page"));
    const embedScript = embedScriptFor(new URL(options.checkoutBaseUrl).origin);
    // The media origins other than the page's own, which 'self' covers.
    const imageSources = [...new Set(options.mediaOrigins)].filter((origin) => origin !== new URL(options.checkoutBaseUrl).origin);

    /** The session for a page, or the status page to answer instead. */
    async function sessionOrProblem(
      secret: string,
      query: PageQuery,
    ): Promise<{ checkout: CheckoutPublic } | { status: number; html: string; embedOrigin: string | null }> {
      const problem = (status: number, heading: string, message: string) => {
        const embedOrigin = embedOriginFor(query, null);
        return {
          status,
          html: statusPage({ heading, message, link: null, theme: query.theme, assets: query.assets, embedOrigin }),
          embedOrigin,
        };
      };
      const notFound = () =>
        problem(404, "Checkout not found", "This checkout link is not valid. Check the address, or ask the seller for a new link.");
      if (secret.length > MAX_SECRET_LENGTH || !secret.startsWith(TokenPrefix.checkoutClientSecret)) return notFound();
      try {
        return { checkout: await client.get(secret) };
      } catch (error) {
        if (error instanceof ResourceNotFound) return notFound();
        if (error instanceof ExpiredCheckoutError)
          return problem(410, "Checkout expired", "This checkout has expired. Ask the seller for a new checkout link.");
        throw error;
      }
    }

    /** A session past its open state: what became of it, and where to go next. */
    async function closedPage(checkout: CheckoutPublic, query: PageQuery, embedOrigin: string | null): Promise<string> {
      const seller = checkout.organization.name;
      const back = checkout.return_url ? { href: checkout.return_url, label: `Back to ${seller}` } : null;
      const common = { theme: query.theme, assets: query.assets, embedOrigin };
      if (checkout.status === "succeeded") {
        const purchase = await options.purchaseOf(checkout);
        return purchaseCompletePage({
          ...common,
          seller,
          email: checkout.customer_email,
          purchase: purchase ? purchaseView(purchase, checkout.locale ?? null) : null,
          portalUrl: customerPortalUrl({ config: options }, checkout.organization),
          link: back,
        });
      }
      if (checkout.status === "confirmed")
        return statusPage({
          ...common,
          heading: "Payment in progress",
          message: "Your payment is being processed. Reload this page in a moment.",
          link: null,
        });
      return statusPage({
        ...common,
        heading: "Payment failed",
        message: `This checkout could not be completed and is closed. Ask ${seller} for a new checkout link.`,
        link: back,
      });
    }

    app.get<{ Params: { client_secret: string } }>("/checkout/:client_secret", { schema: { hide: true } }, async (request, reply) => {
      const query = await queryOf(request);
      const found = await sessionOrProblem(request.params.client_secret, query);
      if (!("checkout" in found)) return sendHtml(reply, found.status, found.html, query.assets, { frameAncestor: found.embedOrigin });
      const { checkout } = found;
      const embedOrigin = embedOriginFor(query, checkout);
      if (checkout.status !== "open")
        return sendHtml(reply, 200, await closedPage(checkout, query, embedOrigin), query.assets, { frameAncestor: embedOrigin });
      const html = checkoutFormPage({
        organizationName: checkout.organization.name,
        theme: query.theme,
        assets: query.assets,
        data: {
          view: "form",
          checkout,
          paymentForm: options.paymentForm.form,
          embedOrigin,
          money: { currency: checkout.currency, format: moneyFormat(checkout.currency) },
        },
      });
      return sendHtml(reply, 200, html, query.assets, {
        frameAncestor: embedOrigin,
        sources: options.paymentForm.sources,
        imageSources,
      });
    });

    app.get<{ Params: { client_secret: string } }>(
      "/checkout/:client_secret/confirmation",
      { schema: { hide: true } },
      async (request, reply) => {
        const query = await queryOf(request);
        const found = await sessionOrProblem(request.params.client_secret, query);
        if (!("checkout" in found)) return sendHtml(reply, found.status, found.html, query.assets, { frameAncestor: found.embedOrigin });
        // Not paid yet: back to the form.
        if (found.checkout.status === "open") return reply.redirect(new URL(found.checkout.url).pathname, 303);
        const embedOrigin = embedOriginFor(query, found.checkout);
        return sendHtml(reply, 200, await closedPage(found.checkout, query, embedOrigin), query.assets, { frameAncestor: embedOrigin });
      },
    );

    // Storefronts load it by a fixed address, so it is cached briefly rather than forever.
    app.get("/checkout/embed.js", { schema: { hide: true } }, async (request, reply) =>
      sendAsset(request, reply, embedScript, "public, max-age=3600", true),
    );
  };
