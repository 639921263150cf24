// Settings: the organization's details and the notices its email receives (PATCH
// /v1/organizations/{id}), its legal details and tax registrations (./legal-details.ts), and its access tokens: created with scopes (the token shown once) and
// revoked, which only the owner's personal token may do (the token routes take no organization token).
import { AvailableScopes } from "../../src/modules/organizations/available-scopes.ts";
import { currentOrganizationId, get, list, request } from "./api.ts";
import { legalDetailsSections } from "./legal-details.ts";
import { pagedTable, pageOf, pageQuery } from "./pager.ts";
import type { PageContext } from "./router.ts";
import { field, formCard, input, onSubmit, selectField, type Field } from "./forms.ts";
import { copyable } from "./copyable.ts";
import { requireScopeForForm } from "./scopes.ts";
import { button, date, dateTime, errorNotice, fill, h, loading, notice, pageHeading } from "./ui.ts";

interface Organization {
  id: string;
  name: string;
  email: string | null;
  website: string | null;
  notification_settings: Record<NotificationSwitch, boolean>;
}

interface AccessToken {
  id: string;
  comment: string;
  scopes: string[];
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
}

// The switches of the notices this server sends; the reference's `chargeback_prevention` and
// `subscription_renewal` gate none yet, so a seller is not offered them.
const NOTIFICATIONS = [
  ["new_order", "Each one-time sale"],
  ["new_subscription", "Each new subscriber"],
  ["subscription_cancellation", "Each cancellation by a customer"],
  ["dispute_opened", "Each dispute opened"],
  ["webhook_endpoint_disabled", "A webhook endpoint disabled after failing"],
] as const;
type NotificationSwitch = (typeof NOTIFICATIONS)[number][0];

/** A few scopes as they are; many folded under a count, so the table stays readable at 390 px. */
const scopesOf = (token: AccessToken): Node | string =>
  token.scopes.length <= 4
    ? token.scopes.join(" ")
    : h("details", {}, h("summary", {}, `${token.scopes.length} scopes`), h("p", {}, token.scopes.join(" ")));

const checkbox = (label: string, name: string, checked: boolean): Field => field(label, input({ type: "checkbox", name, checked }));

function detailsForm(context: PageContext, organization: Organization): HTMLElement {
  const fields = {
    name: field("Name", input({ type: "text", name: "name", value: organization.name, required: true, maxlength: "256" })),
    email: field(
      "Email",
      input({ type: "email", name: "email", value: organization.email ?? "", maxlength: "254" }),
      "Where your notices go.",
    ),
    website: field("Website", input({ type: "url", name: "website", value: organization.website ?? "", maxlength: "2048" })),
  };
  const parts = formCard("Organization details", "Save details", ...Object.values(fields).map((f) => f.wrapper));
  requireScopeForForm(context.data, "organizations:write", parts);
  onSubmit(
    parts,
    fields,
    () =>
      request<Organization>("PATCH", `organizations/${currentOrganizationId()}`, {
        name: fields.name.control.value.trim(),
        email: fields.email.control.value.trim() || null,
        website: fields.website.control.value.trim() || null,
      }),
    () => "Details saved.",
  );
  return parts.form;
}

function notificationsForm(context: PageContext, organization: Organization): HTMLElement {
  const switches = NOTIFICATIONS.map(([name, label]) => [name, checkbox(label, name, organization.notification_settings[name])] as const);
  const parts = formCard(
    "Notifications",
    "Save notifications",
    h("fieldset", {}, h("legend", {}, "Email me about"), ...switches.map(([, f]) => f.wrapper)),
  );
  requireScopeForForm(context.data, "organizations:write", parts);
  onSubmit(
    parts,
    {},
    () =>
      request<Organization>("PATCH", `organizations/${currentOrganizationId()}`, {
        notification_settings: Object.fromEntries(switches.map(([name, f]) => [name, (f.control as HTMLInputElement).checked])),
      }),
    () => "Notifications saved.",
  );
  return parts.form;
}

function tokensSection(context: PageContext): HTMLElement {
  const section = h("section", { "aria-label": "Access tokens" }, h("h2", {}, "Access tokens"));
  if (context.data.signedInAs.kind !== "user") {
    section.append(
      notice(
        "info",
        "Only the owner's personal access token creates, lists and revokes organization tokens. Sign in with it to manage them.",
      ),
    );
    return section;
  }
  const listing = h("div", { "aria-live": "polite" }, loading());
  const messages = h("div", { class: "messages", "aria-live": "polite" });
  const load = async (): Promise<void> => {
    const answer = await list<AccessToken>("organization-access-tokens/", pageQuery(context.query));
    if (!answer.ok) return fill(listing, errorNotice(answer.error));
    fill(
      listing,
      pagedTable(
        "Tokens",
        [
          { label: "Comment", cell: (t: AccessToken) => t.comment || "—" },
          { label: "Scopes", cell: scopesOf },
          { label: "Created", cell: (t) => date(t.created_at) },
          { label: "Expires", cell: (t) => (t.expires_at ? date(t.expires_at) : "Never") },
          { label: "Last used", cell: (t) => dateTime(t.last_used_at) },
          { label: "Revoke", cell: (t) => revokeButton(t) },
        ],
        answer.body,
        pageOf(context.query),
        "No tokens.",
      ),
    );
  };
  const revokeButton = (token: AccessToken): HTMLButtonElement => {
    const revoke = button("Revoke", { class: "button button-danger", "aria-label": `Revoke the token “${token.comment}”` });
    revoke.addEventListener("click", () => {
      revoke.disabled = true;
      void request("DELETE", `organization-access-tokens/${token.id}`).then((result) => {
        messages.replaceChildren(result.ok ? notice("success", `Token “${token.comment}” revoked.`) : errorNotice(result.error));
        void load();
      });
    });
    return revoke;
  };

  const comment = field("Comment", input({ type: "text", name: "comment", required: true, maxlength: "255" }), "What the token is for.");
  const expiry = selectField(
    "Expires",
    "expires_in",
    [
      ["", "Never"],
      ["P30D", "In 30 days"],
      ["P90D", "In 90 days"],
      ["P365D", "In a year"],
    ],
    "P90D",
  );
  const scopes = AvailableScopes.map((scope) => [scope, checkbox(scope, "scopes", false)] as const);
  const parts = formCard(
    "New token",
    "Create token",
    comment.wrapper,
    expiry.wrapper,
    h("fieldset", { class: "scopes" }, h("legend", {}, "Scopes"), ...scopes.map(([, f]) => f.wrapper)),
  );
  onSubmit(
    parts,
    { comment, expires_in: expiry },
    () =>
      request<{ token: string }>("POST", "organization-access-tokens/", {
        organization_id: currentOrganizationId(),
        comment: comment.control.value.trim(),
        expires_in: expiry.control.value || null,
        scopes: scopes.filter(([, f]) => (f.control as HTMLInputElement).checked).map(([scope]) => scope),
      }),
    (created) => {
      parts.form.reset();
      void load();
      return h("div", {}, notice("success", "Token created. Copy it now: it is shown only once."), copyable("New token", created.token));
    },
  );
  section.append(messages, listing, parts.form);
  void load();
  return section;
}

export async function settingsPage(context: PageContext): Promise<void> {
  const body = h("div", { "aria-live": "polite" }, loading());
  fill(context.main, pageHeading("Settings"), body);
  const [answer, legal] = await Promise.all([
    get<Organization>(`organizations/${currentOrganizationId()}`),
    legalDetailsSections(context.data),
  ]);
  if (!answer.ok) return fill(body, errorNotice(answer.error));
  fill(body, detailsForm(context, answer.body), legal, notificationsForm(context, answer.body), tokensSection(context));
}
