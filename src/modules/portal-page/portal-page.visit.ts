import type { FastifyReply, FastifyRequest } from "fastify";
import { setRequestClockOffset } from "../../values/clock.ts";
import { AppError, ResourceNotFound } from "../../http/errors.ts";
import { sendHtml, themeOf, type PageAssets, type Theme } from "../../pages/html-page.ts";
import type { WebAssets } from "../../pages/web-assets.ts";
import { billingFormFrom, type BillingForm, type FieldErrors } from "./portal-page.forms.ts";
import { loadOverview, type PortalPageServices } from "./portal-page.data.ts";
import { signInPageHtml, type SignInStep, type SignInView } from "./portal-page-sign-in.render.ts";
import { overviewPage, portalStatusPage, type CardAuthentication, type PortalShell } from "./portal-page.render.ts";
import { readCookie } from "../../http/cookies.ts";
import { SESSION_COOKIE, portalPath, type PortalOrganization, type PortalVisit } from "./portal-page.session.ts";

// What the portal page's handlers share: the page sent, the status pages, the overview, and the
// visit of the session's customer each action runs in.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The portal's address holds no secret once signed in, and its forms post to it. */
const PAGE_HEADERS = { referrerPolicy: "same-origin" } as const;

/** The services the pages are rendered from, and the pages' script and styles. */
export interface PortalPageContext {
  services: PortalPageServices;
  webAssets: WebAssets;
}

/** What a redirect after an action says on the portal: fixed sentences, never text from the address. */
const NOTICES = {
  "billing-saved": "Your billing details are saved.",
  "subscription-cancelled": "Your subscription is cancelled. It stays active until the end of the current period.",
  "subscription-resumed": "Your subscription will renew as before.",
  "activation-deactivated": "The activation is removed.",
  "payment-method-saved": "Your payment method is saved.",
} as const;
export type Notice = keyof typeof NOTICES;

export interface Params {
  slug: string;
  id?: string;
  activationId?: string;
}

export const noticeOf = (query: unknown): string | null => {
  const done = typeof query === "object" && query !== null ? (query as { done?: unknown }).done : null;
  return typeof done === "string" && done in NOTICES ? NOTICES[done as Notice] : null;
};

/** The page of orders asked for: a whole number from 1 (anything else shows the first page). */
export const ordersPageOf = (query: unknown): number => {
  const asked = typeof query === "object" && query !== null ? (query as { orders_page?: unknown }).orders_page : undefined;
  return typeof asked === "string" && /^[1-9][0-9]{0,5}$/.test(asked) ? Number(asked) : 1;
};

/**
 * Another site's form must not act as the customer: a POST comes from this origin, as the browser
 * says in `Sec-Fetch-Site`, or else in `Origin`.
 */
export function sameOrigin(request: FastifyRequest): boolean {
  const site = request.headers["sec-fetch-site"];
  if (site !== undefined) return site === "same-origin";
  const origin = request.headers.origin;
  if (typeof origin !== "string") return false;
  try {
    const from = new URL(origin);
    // The Host header may name the scheme's default port, which an origin leaves out.
    return from.host === new URL(`${from.protocol}//${request.headers.host ?? ""}`).host;
  } catch {
    return false;
  }
}

/** Renders a page with the portal's inline script and styles, and sends it with their hashes. */
export async function sendPage(
  context: PortalPageContext,
  reply: FastifyReply,
  code: number,
  render: (assets: PageAssets) => string,
): Promise<FastifyReply> {
  const assets = await context.webAssets.forPage("portal-page");
  return sendHtml(reply, code, render(assets), assets, { ...PAGE_HEADERS, sources: context.services.paymentForm.sources });
}

export const shellOf = (organization: PortalOrganization, theme: Theme, assets: PageAssets): PortalShell => ({
  organization,
  theme,
  assets,
});

/** A page that only says something: a heading, a sentence, and (while a document renders) a poll. */
export interface StatusNote {
  heading: string;
  message: string;
  pollMs?: number;
}

export const statusPage = (
  context: PortalPageContext,
  reply: FastifyReply,
  code: number,
  page: { organization: PortalOrganization | null; theme: Theme },
  { heading, message, pollMs }: StatusNote,
) => sendPage(context, reply, code, (assets) => portalStatusPage({ ...page, assets }, { heading, message, link: null, pollMs }));

/** A sign-in step of the portal page (no session yet): the email form, the choice of account, the code form. */
export const signInPage = (
  context: PortalPageContext,
  reply: FastifyReply,
  organization: PortalOrganization,
  theme: Theme,
  view: SignInStep & SignInView,
) => sendPage(context, reply, view.code, (assets) => signInPageHtml({ organization, theme, assets }, view));

/** A token that opens no visit: no (live) session, or a member session without billing access. */
export const refused = (
  context: PortalPageContext,
  reply: FastifyReply,
  organization: PortalOrganization,
  theme: Theme,
  reason: "no-session" | "not-billing",
) =>
  reason === "not-billing"
    ? statusPage(
        context,
        reply,
        403,
        { organization, theme },
        { heading: "Not available", message: "Only owners and billing managers can access billing features." },
      )
    : signInPage(context, reply, organization, theme, { step: "email", email: "", code: 401 });

export const portalNotFound = (context: PortalPageContext, reply: FastifyReply, theme: Theme) =>
  statusPage(
    context,
    reply,
    404,
    { organization: null, theme },
    { heading: "Portal not found", message: "There is no customer portal at this address." },
  );

export interface OverviewOptions {
  code?: number;
  notice?: string | null;
  problem?: string | null;
  /** A card waiting for the customer's bank (3-D Secure): the page finishes it. */
  cardAuthentication?: CardAuthentication | null;
  billing?: { values: BillingForm; errors: FieldErrors };
  ordersPage?: number;
}

export async function overview(
  context: PortalPageContext,
  reply: FastifyReply,
  visit: PortalVisit,
  theme: Theme,
  options: OverviewOptions = {},
) {
  const { services } = context;
  const data = await loadOverview(services, visit.session, options.ordersPage);
  return sendPage(context, reply, options.code ?? 200, (assets) =>
    overviewPage(shellOf(visit.organization, theme, assets), {
      ...data,
      returnUrl: visit.returnUrl,
      paymentForm: services.paymentForm.form,
      cardAuthentication: options.cardAuthentication ?? null,
      notice: options.notice ?? null,
      problem: options.problem ?? null,
      billing: options.billing ?? {
        values: billingFormFrom(data.customer.billing_name, data.customer.billing_address, data.customer.tax_id?.[0] ?? null),
        errors: {},
      },
    }),
  );
}

export type CustomerHandler = (
  visit: PortalVisit,
  request: FastifyRequest<{ Params: Params }>,
  reply: FastifyReply,
  theme: Theme,
) => Promise<FastifyReply>;

/**
 * A handler acting as the session's customer: the organization of the address, the session of
 * its cookie, that organization's clock. A refusal the handler does not handle itself is shown
 * on the portal (unknown ids as the 404 page), never as a 500.
 */
export const asCustomer =
  (context: PortalPageContext, handler: CustomerHandler) => async (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) => {
    const theme = themeOf(request.query);
    const organization = await context.services.sessions.organization(request.params.slug);
    if (!organization) return portalNotFound(context, reply, theme);
    const entry = await context.services.sessions.enter(organization, readCookie(request.headers.cookie, SESSION_COOKIE));
    if ("refused" in entry) return refused(context, reply, organization, theme, entry.refused);
    const { visit } = entry;
    setRequestClockOffset(visit.clockOffsetMs);
    const page = { organization, theme };
    if (request.method === "POST" && !sameOrigin(request))
      return statusPage(context, reply, 403, page, {
        heading: "Not allowed",
        message: "This form was sent from another site and was not accepted.",
      });
    const ids = [request.params.id, request.params.activationId].filter((id) => id !== undefined);
    try {
      if (!ids.every((id) => UUID.test(id))) throw new ResourceNotFound();
      return await handler(visit, request, reply, theme);
    } catch (error) {
      if (error instanceof ResourceNotFound)
        return statusPage(context, reply, 404, page, { heading: "Not found", message: "This item does not exist or is not yours." });
      if (error instanceof AppError) return overview(context, reply, visit, theme, { code: error.statusCode, problem: error.detail });
      throw error;
    }
  };

export const backTo = (reply: FastifyReply, visit: PortalVisit, notice: Notice, anchor: string) =>
  reply.redirect(`${portalPath(visit.organization.slug)}?done=${notice}#${anchor}`, 303);
