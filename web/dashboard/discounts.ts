// Discounts: the list and a form creating one (a percentage or a fixed amount in the organization's
// currency; once, forever or for some months), through GET and POST /v1/discounts/.
import { list, request } from "./api.ts";
import { pagedTable, pageOf, pageQuery } from "./pager.ts";
import type { PageContext } from "./router.ts";
import { field, formCard, input, onSubmit, selectField } from "./forms.ts";
import { requireScopeForForm } from "./scopes.ts";
import { count, date, errorNotice, fill, h, loading, minorPerMajor, money, pageHeading } from "./ui.ts";

interface Discount {
  id: string;
  name: string;
  code: string | null;
  type: "percentage" | "fixed";
  basis_points?: number;
  amounts?: Record<string, number>;
  duration: "once" | "forever" | "repeating";
  duration_in_months: number | null;
  redemptions_count: number;
  max_redemptions: number | null;
  created_at: string;
}

const valueOf = (d: Discount): string =>
  d.type === "percentage"
    ? `${(d.basis_points ?? 0) / 100}%`
    : Object.entries(d.amounts ?? {})
        .map(([currency, amount]) => money(amount, currency))
        .join(", ");

const durationOf = (d: Discount): string => (d.duration === "repeating" ? `${d.duration_in_months ?? 0} months` : d.duration);

function createForm(context: PageContext, refresh: () => void): HTMLElement {
  const currency = context.data.organization.currency;
  const fields = {
    name: field("Name", input({ type: "text", name: "name", required: true, maxlength: "256" }), "Shown to the customer at checkout."),
    code: field(
      "Code",
      input({ type: "text", name: "code", maxlength: "256", autocapitalize: "characters" }),
      "Letters and digits the customer types; leave empty to apply it through a link only.",
    ),
    type: selectField(
      "Type",
      "type",
      [
        ["percentage", "Percentage"],
        ["fixed", `Fixed amount (${currency.toUpperCase()})`],
      ],
      "percentage",
    ),
    value: field(
      "Value",
      input({ type: "number", name: "value", required: true, min: "0", step: "0.01", inputmode: "decimal" }),
      "A percentage (25 for 25 %), or an amount in major units (12.50).",
    ),
    duration: selectField(
      "Duration",
      "duration",
      [
        ["once", "Once"],
        ["forever", "Forever"],
        ["repeating", "For some months"],
      ],
      "once",
    ),
    duration_in_months: field(
      "Months",
      input({ type: "number", name: "duration_in_months", min: "1", max: "999", step: "1" }),
      "Only for “For some months”.",
    ),
  };
  const parts = formCard("New discount", "Create discount", ...Object.values(fields).map((f) => f.wrapper));
  requireScopeForForm(context.data, "discounts:write", parts);
  onSubmit(
    parts,
    {
      name: fields.name,
      code: fields.code,
      basis_points: fields.value,
      amounts: fields.value,
      duration_in_months: fields.duration_in_months,
    },
    () => {
      const value = Number(fields.value.control.value);
      const months = fields.duration_in_months.control.value;
      const shared = {
        name: fields.name.control.value.trim(),
        code: fields.code.control.value.trim() || null,
        duration: fields.duration.control.value,
        duration_in_months: fields.duration.control.value === "repeating" && months ? Number(months) : null,
        organization_id: context.data.organization.id,
      };
      return request<Discount>(
        "POST",
        "discounts/",
        fields.type.control.value === "percentage"
          ? { ...shared, type: "percentage", basis_points: Math.round(value * 100) }
          : { ...shared, type: "fixed", amounts: { [currency]: Math.round(value * minorPerMajor(currency)) } },
      );
    },
    (discount) => {
      parts.form.reset();
      refresh();
      return `Discount “${discount.name}” created.`;
    },
  );
  return parts.form;
}

export async function discountsPage(context: PageContext): Promise<void> {
  const results = h("div", { "aria-live": "polite" }, loading());
  const load = async () => {
    const answer = await list<Discount>("discounts/", { ...pageQuery(context.query), sorting: "-created_at" });
    if (!answer.ok) return fill(results, errorNotice(answer.error));
    fill(
      results,
      pagedTable(
        "Discounts",
        [
          { label: "Name", cell: (d: Discount) => d.name },
          { label: "Code", cell: (d) => d.code ?? "—" },
          { label: "Value", cell: valueOf, numeric: true },
          { label: "Duration", cell: durationOf },
          {
            label: "Redemptions",
            cell: (d) => `${count(d.redemptions_count)}${d.max_redemptions ? ` of ${count(d.max_redemptions)}` : ""}`,
            numeric: true,
          },
          { label: "Created", cell: (d) => date(d.created_at) },
        ],
        answer.body,
        pageOf(context.query),
        "No discounts yet.",
      ),
    );
  };
  fill(
    context.main,
    pageHeading("Discounts"),
    results,
    createForm(context, () => void load()),
  );
  await load();
}
