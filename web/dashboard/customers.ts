// Customers: the list with a search, and one customer's page: their state (GET /v1/customers/{id}/state:
// active subscriptions, granted benefits, meters), orders, subscriptions, license keys, and a portal
// link to send them (a customer session's `customer_portal_url`).
import { get, list, request } from "./api.ts";
import { pagedTable, pageOf, pageQuery } from "./pager.ts";
import type { PageContext } from "./router.ts";
import { field, formCard, input, onSubmit } from "./forms.ts";
import { copyable } from "./copyable.ts";
import { requireScope } from "./scopes.ts";
import { count, date, dateTime, errorNotice, facts, fill, h, link, loading, money, notice, pageHeading, table } from "./ui.ts";

interface Customer {
  id: string;
  email: string;
  name: string | null;
  external_id: string | null;
  created_at: string;
}

interface CustomerState extends Customer {
  active_subscriptions: {
    id: string;
    status: string;
    amount: number;
    currency: string;
    current_period_end: string | null;
    product_id: string;
  }[];
  granted_benefits: { id: string; benefit_type: string; granted_at: string; benefit_id: string }[];
  active_meters: { meter_id: string; consumed_units: number; credited_units: number; balance: number }[];
}

interface Order {
  id: string;
  created_at: string;
  status: string;
  total_amount: number;
  currency: string;
  product: { name: string } | null;
}

interface Subscription {
  id: string;
  status: string;
  amount: number;
  currency: string;
  current_period_end: string | null;
  cancel_at_period_end: boolean;
  product: { name: string };
}

interface LicenseKey {
  id: string;
  display_key: string;
  status: string;
  expires_at: string | null;
}

export async function customersPage(context: PageContext): Promise<void> {
  const { main, query } = context;
  const search = input({ type: "search", name: "query", value: query.get("query") ?? "", maxlength: "256" });
  const searchField = field("Search by name or email", search);
  const form = h(
    "form",
    { class: "toolbar", role: "search" },
    searchField.wrapper,
    h("button", { type: "submit", class: "button" }, "Search"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    context.navigate(`/dashboard/customers${search.value.trim() ? `?${new URLSearchParams({ query: search.value.trim() })}` : ""}`);
  });
  const results = h("div", { "aria-live": "polite" }, loading());
  fill(main, pageHeading("Customers"), form, results);
  const answer = await list<Customer>("customers/", { query: query.get("query"), ...pageQuery(query), sorting: "-created_at" });
  if (!answer.ok) return fill(results, errorNotice(answer.error));
  fill(
    results,
    pagedTable(
      "Customers",
      [
        { label: "Customer", cell: (c: Customer) => link(`/dashboard/customers/${c.id}`, c.name ?? c.email) },
        { label: "Email", cell: (c) => c.email },
        { label: "External ID", cell: (c) => c.external_id ?? "—" },
        { label: "Since", cell: (c) => date(c.created_at) },
      ],
      answer.body,
      pageOf(query),
      query.get("query") ? "No customer matches this search." : "No customers yet.",
    ),
  );
}

/** Creates a customer session and shows its portal address to copy and send. */
function portalLinkForm(context: PageContext, customerId: string): HTMLElement {
  const parts = formCard("Portal link", "Create a portal link");
  const reason = requireScope(context.data, "customer_sessions:write", parts.submit);
  parts.form.insertBefore(
    h("p", { class: "hint" }, "A link that signs this customer into their portal, to send them. It expires; create another when it does."),
    parts.submit.parentElement,
  );
  if (reason) parts.form.append(reason);
  onSubmit(
    parts,
    {},
    () => request<{ customer_portal_url: string; expires_at: string }>("POST", "customer-sessions/", { customer_id: customerId }),
    (session) =>
      h(
        "div",
        {},
        notice("success", `Link created; it expires ${dateTime(session.expires_at)}.`),
        copyable("Portal link", session.customer_portal_url),
      ),
  );
  return parts.form;
}

/** A customer's three lists, each a page at a time with its own page in the address. */
const ORDERS_PAGE = "orders_page";
const SUBSCRIPTIONS_PAGE = "subscriptions_page";
const LICENSE_KEYS_PAGE = "license_keys_page";

export async function customerPage(context: PageContext): Promise<void> {
  const { main, params, query } = context;
  const body = h("div", { "aria-live": "polite" }, loading());
  const heading = pageHeading("Customer");
  fill(main, heading, body);
  const id = params.id ?? "";
  const [state, orders, subscriptions, keys] = await Promise.all([
    get<CustomerState>(`customers/${encodeURIComponent(id)}/state`),
    list<Order>("orders/", { customer_id: id, ...pageQuery(query, ORDERS_PAGE), sorting: "-created_at" }),
    list<Subscription>("subscriptions/", { customer_id: id, ...pageQuery(query, SUBSCRIPTIONS_PAGE), sorting: "-started_at" }),
    // `customer_id` is this API's extension of the license keys list (the reference filters by organization and benefit only).
    list<LicenseKey>("license-keys/", { customer_id: id, ...pageQuery(query, LICENSE_KEYS_PAGE) }),
  ]);
  if (!state.ok) return fill(body, errorNotice(state.error), h("p", {}, link("/dashboard/customers", "Back to customers")));
  const customer = state.body;
  heading.textContent = customer.name ?? customer.email;
  const section = (title: string, ...content: (Node | null)[]) => h("section", { "aria-label": title }, h("h2", {}, title), ...content);
  fill(
    body,
    facts([
      ["Email", customer.email],
      ["Name", customer.name ?? "—"],
      ["External ID", customer.external_id ?? "—"],
      ["Customer since", date(customer.created_at)],
    ]),
    section(
      "State",
      table(
        "Active subscriptions",
        [
          {
            label: "Subscription",
            cell: (s: CustomerState["active_subscriptions"][number]) => link(`/dashboard/subscriptions/${s.id}`, s.status),
          },
          { label: "Amount", cell: (s) => money(s.amount, s.currency), numeric: true },
          { label: "Renews", cell: (s) => date(s.current_period_end) },
        ],
        customer.active_subscriptions,
        "No active subscription.",
      ),
      table(
        "Granted benefits",
        [
          { label: "Benefit type", cell: (g: CustomerState["granted_benefits"][number]) => g.benefit_type },
          { label: "Granted", cell: (g) => dateTime(g.granted_at) },
        ],
        customer.granted_benefits,
        "No benefit granted.",
      ),
      table(
        "Meters",
        [
          { label: "Meter", cell: (m: CustomerState["active_meters"][number]) => link(`/dashboard/usage/${m.meter_id}`, "Open meter") },
          { label: "Consumed", cell: (m) => count(m.consumed_units), numeric: true },
          { label: "Credited", cell: (m) => count(m.credited_units), numeric: true },
          { label: "Balance", cell: (m) => count(m.balance), numeric: true },
        ],
        customer.active_meters,
        "No meter.",
      ),
    ),
    section(
      "Orders",
      orders.ok
        ? pagedTable(
            "Orders",
            [
              { label: "Date", cell: (o: Order) => link(`/dashboard/orders/${o.id}`, dateTime(o.created_at)) },
              { label: "Product", cell: (o) => o.product?.name ?? "—" },
              { label: "Status", cell: (o) => o.status },
              { label: "Total", cell: (o) => money(o.total_amount, o.currency), numeric: true },
            ],
            orders.body,
            pageOf(query, ORDERS_PAGE),
            "No orders.",
            ORDERS_PAGE,
          )
        : errorNotice(orders.error),
    ),
    section(
      "Subscriptions",
      subscriptions.ok
        ? pagedTable(
            "Subscriptions",
            [
              { label: "Product", cell: (s: Subscription) => link(`/dashboard/subscriptions/${s.id}`, s.product.name) },
              { label: "Status", cell: (s) => (s.cancel_at_period_end ? `${s.status}, ends at period end` : s.status) },
              { label: "Amount", cell: (s) => money(s.amount, s.currency), numeric: true },
              { label: "Period ends", cell: (s) => date(s.current_period_end) },
            ],
            subscriptions.body,
            pageOf(query, SUBSCRIPTIONS_PAGE),
            "No subscriptions.",
            SUBSCRIPTIONS_PAGE,
          )
        : errorNotice(subscriptions.error),
    ),
    section(
      "License keys",
      keys.ok
        ? pagedTable(
            "License keys",
            [
              { label: "Key", cell: (k: LicenseKey) => k.display_key },
              { label: "Status", cell: (k) => k.status },
              { label: "Expires", cell: (k) => date(k.expires_at) },
            ],
            keys.body,
            pageOf(query, LICENSE_KEYS_PAGE),
            "No license keys.",
            LICENSE_KEYS_PAGE,
          )
        : errorNotice(keys.error),
    ),
    portalLinkForm(context, customer.id),
  );
}
