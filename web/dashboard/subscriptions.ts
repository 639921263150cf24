// Subscriptions: the list with the API's filters, and one subscription with its actions: cancel at
// the period's end, uncancel, revoke now (PATCH and DELETE /v1/subscriptions/{id}), each disabled
// with the reason when the token lacks `subscriptions:write`.
import { get, list, request, type ApiResult } from "./api.ts";
import { pagedTable, pageOf, pageQuery } from "./pager.ts";
import type { PageContext } from "./router.ts";
import { selectField } from "./forms.ts";
import { requireScope } from "./scopes.ts";
import { button, date, dateTime, errorNotice, facts, fill, h, link, loading, money, notice, pageHeading } from "./ui.ts";

interface Subscription {
  id: string;
  status: string;
  amount: number;
  currency: string;
  recurring_interval: string;
  current_period_start: string;
  current_period_end: string | null;
  cancel_at_period_end: boolean;
  canceled_at: string | null;
  started_at: string | null;
  ends_at: string | null;
  ended_at: string | null;
  customer: { id: string; email: string; name: string | null };
  product: { id: string; name: string };
}

const FILTERS = [
  {
    name: "active",
    label: "Active",
    options: [
      ["", "Any"],
      ["true", "Active"],
      ["false", "Ended"],
    ],
  },
  {
    name: "cancel_at_period_end",
    label: "Canceling",
    options: [
      ["", "Any"],
      ["true", "Ends at period end"],
      ["false", "Renews"],
    ],
  },
] as const;

const statusOf = (s: Subscription): string =>
  s.cancel_at_period_end && s.status !== "canceled" ? `${s.status}, ends at period end` : s.status;

export async function subscriptionsPage(context: PageContext): Promise<void> {
  const { main, query } = context;
  const controls = FILTERS.map((filter) => selectField(filter.label, filter.name, filter.options, query.get(filter.name) ?? ""));
  const form = h(
    "form",
    { class: "toolbar", "aria-label": "Filters" },
    ...controls.map((c) => c.wrapper),
    h("button", { type: "submit", class: "button" }, "Filter"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    for (const control of controls) if (control.control.value) next.set(control.control.name, control.control.value);
    context.navigate(`/dashboard/subscriptions${next.size ? `?${next}` : ""}`);
  });
  const results = h("div", { "aria-live": "polite" }, loading());
  fill(main, pageHeading("Subscriptions"), form, results);
  const answer = await list<Subscription>("subscriptions/", {
    active: query.get("active"),
    cancel_at_period_end: query.get("cancel_at_period_end"),
    ...pageQuery(query),
    sorting: "-started_at",
  });
  if (!answer.ok) return fill(results, errorNotice(answer.error));
  fill(
    results,
    pagedTable(
      "Subscriptions",
      [
        { label: "Customer", cell: (s: Subscription) => link(`/dashboard/subscriptions/${s.id}`, s.customer.name ?? s.customer.email) },
        { label: "Product", cell: (s) => s.product.name },
        { label: "Status", cell: statusOf },
        { label: "Amount", cell: (s) => `${money(s.amount, s.currency)} / ${s.recurring_interval}`, numeric: true },
        { label: "Period ends", cell: (s) => date(s.current_period_end) },
      ],
      answer.body,
      pageOf(query),
      "No subscription matches.",
    ),
  );
}

export async function subscriptionPage(context: PageContext): Promise<void> {
  const { main, params, data } = context;
  const heading = pageHeading("Subscription");
  const body = h("div", {}, loading());
  const messages = h("div", { class: "messages", "aria-live": "polite" });
  fill(main, heading, messages, body);
  const path = `subscriptions/${encodeURIComponent(params.id ?? "")}`;

  const show = (s: Subscription): void => {
    heading.textContent = `${s.product.name} · ${s.customer.name ?? s.customer.email}`;
    const cancel = button("Cancel at period end");
    const uncancel = button("Keep renewing (uncancel)");
    const revoke = button("Revoke now", { class: "button button-danger" });
    const ended = s.status === "canceled" || s.ended_at !== null;
    cancel.disabled = ended || s.cancel_at_period_end;
    uncancel.disabled = ended || !s.cancel_at_period_end;
    revoke.disabled = ended;
    const reason = requireScope(data, "subscriptions:write", cancel, uncancel, revoke);
    const act = (done: string, send: () => Promise<ApiResult<Subscription>>) => async () => {
      for (const b of [cancel, uncancel, revoke]) b.disabled = true;
      const result = await send();
      if (!result.ok) {
        messages.replaceChildren(errorNotice(result.error));
        return show(s);
      }
      messages.replaceChildren(notice("success", done));
      show(result.body);
    };
    cancel.addEventListener(
      "click",
      () => void act("Canceled: it ends at the end of the period.", () => request("PATCH", path, { cancel_at_period_end: true }))(),
    );
    uncancel.addEventListener(
      "click",
      () => void act("Uncanceled: it renews again.", () => request("PATCH", path, { cancel_at_period_end: false }))(),
    );
    // Revoking ends access at once and cannot be undone: a second, explicit button confirms it.
    const confirm = button("Yes, revoke it now", { class: "button button-danger", hidden: true });
    revoke.addEventListener("click", () => {
      confirm.hidden = false;
      confirm.focus();
    });
    confirm.addEventListener("click", () => void act("Revoked: the subscription has ended.", () => request("DELETE", path))());
    fill(
      body,
      facts([
        ["Customer", link(`/dashboard/customers/${s.customer.id}`, s.customer.name ?? s.customer.email)],
        ["Product", s.product.name],
        ["Status", statusOf(s)],
        ["Amount", `${money(s.amount, s.currency)} / ${s.recurring_interval}`],
        ["Started", dateTime(s.started_at)],
        ["Current period", `${date(s.current_period_start)} to ${date(s.current_period_end)}`],
        ["Canceled", dateTime(s.canceled_at)],
        ["Ends", dateTime(s.ends_at ?? s.ended_at)],
      ]),
      h(
        "section",
        { "aria-label": "Actions" },
        h("h2", {}, "Actions"),
        h("p", { class: "actions" }, cancel, " ", uncancel, " ", revoke, " ", confirm),
        reason,
      ),
    );
  };

  const answer = await get<Subscription>(path);
  if (!answer.ok) return fill(body, errorNotice(answer.error), h("p", {}, link("/dashboard/subscriptions", "Back to subscriptions")));
  show(answer.body);
}
