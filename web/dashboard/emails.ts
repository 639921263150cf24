// Emails: the organization's outbox (what was sent, kept or refused, and why) and one email as its
// recipient got it. The outbox has no public API route: these read `/dashboard/api-ext/emails`.
import { request, type ApiResult, type Query, queryString } from "./api.ts";
import { pagedTable, pageOf, pageQuery, type Pagination } from "./pager.ts";
import type { PageContext } from "./router.ts";
import { selectField } from "./forms.ts";
import { dateTime, errorNotice, facts, fill, h, link, loading, pageHeading } from "./ui.ts";

interface EmailSummary {
  id: string;
  created_at: string;
  template: string;
  recipient: string;
  subject: string;
  status: "pending" | "sent" | "failed" | "kept";
  attempts: number;
  sent_at: string | null;
  last_error: string | null;
}

interface Email extends EmailSummary {
  sender: string;
  reply_to: string | null;
  text: string;
  html: string;
}

const read = <T>(path: string, query: Query = {}): Promise<ApiResult<T>> =>
  request<T>("GET", `${path}${queryString(query)}`, undefined, "/dashboard/api-ext/");

const STATUSES = [
  ["", "Any"],
  ["sent", "Sent"],
  ["pending", "Pending"],
  ["failed", "Failed"],
  ["kept", "Kept (no mail server)"],
] as const;

export async function emailsPage(context: PageContext): Promise<void> {
  const status = selectField("Status", "status", STATUSES, context.query.get("status") ?? "");
  status.control.addEventListener("change", () =>
    context.navigate(`/dashboard/emails${status.control.value ? `?${new URLSearchParams({ status: status.control.value })}` : ""}`),
  );
  const results = h("div", { "aria-live": "polite" }, loading());
  fill(context.main, pageHeading("Emails"), h("div", { class: "toolbar" }, status.wrapper), results);
  const answer = await read<{ items: EmailSummary[]; pagination: Pagination }>("emails", {
    status: context.query.get("status"),
    ...pageQuery(context.query),
  });
  if (!answer.ok) return fill(results, errorNotice(answer.error));
  fill(
    results,
    pagedTable(
      "Outbox",
      [
        { label: "Subject", cell: (e: EmailSummary) => link(`/dashboard/emails/${e.id}`, e.subject) },
        { label: "To", cell: (e) => e.recipient },
        { label: "Template", cell: (e) => e.template },
        { label: "Status", cell: (e) => e.status },
        { label: "Sent", cell: (e) => dateTime(e.sent_at) },
        { label: "Error", cell: (e) => e.last_error ?? "—" },
      ],
      answer.body,
      pageOf(context.query),
      "No emails.",
    ),
  );
}

export async function emailPage(context: PageContext): Promise<void> {
  const heading = pageHeading("Email");
  const body = h("div", { "aria-live": "polite" }, loading());
  fill(context.main, heading, body);
  const answer = await read<Email>(`emails/${encodeURIComponent(context.params.id ?? "")}`);
  if (!answer.ok) return fill(body, errorNotice(answer.error), h("p", {}, link("/dashboard/emails", "Back to the outbox")));
  const email = answer.body;
  heading.textContent = email.subject;
  // The HTML is the email's own markup: shown only inside a frame sandboxed to nothing (no script,
  // no same origin, no forms, no navigation of this page), as text to the page itself.
  const frame = h("iframe", { class: "email-html", title: `The email “${email.subject}” as HTML`, sandbox: "", srcdoc: email.html });
  fill(
    body,
    facts([
      ["To", email.recipient],
      ["From", email.sender],
      ["Reply-To", email.reply_to ?? "—"],
      ["Template", email.template],
      ["Status", email.status],
      ["Attempts", String(email.attempts)],
      ["Written", dateTime(email.created_at)],
      ["Sent", dateTime(email.sent_at)],
      ["Error", email.last_error ?? "—"],
    ]),
    h("section", { "aria-label": "Text" }, h("h2", {}, "Text"), h("pre", { class: "email-text", tabindex: "0" }, email.text)),
    h("section", { "aria-label": "HTML" }, h("h2", {}, "HTML"), frame),
    h("p", {}, link("/dashboard/emails", "Back to the outbox")),
  );
}
