// The hosted checkout page's script. It draws the form from the session the page carries and sends
// every change to the public client routes; the amounts, the fields required and whether a payment
// is due always come from the API's answer, never from this file.
import type { CountryChoice } from "../src/schema/country-names.ts";
import { COUNTRIES_BLOCK_ID, type CheckoutPageData } from "../src/modules/checkout-page/checkout-page.data.ts";
import type { CheckoutConfirm } from "../src/modules/checkouts/checkout-inputs.schemas.ts";
import type { CheckoutPublic, CheckoutPublicConfirmed } from "../src/modules/checkouts/checkouts.schemas.ts";
import { formatMoney } from "../src/values/money-format.ts";
import { field, h, input, setFieldError, type Field } from "./dom.ts";
import { embedMessenger, wireCloseButtons, type PostToParent } from "./embed-messages.ts";
import { paymentFormFor, type BillingDetails, type PaymentForm, type PaymentTerms } from "./payment-forms.ts";

type Checkout = CheckoutPublic;
type Changes = Omit<CheckoutConfirm, "confirmation_token_id">;
type Product = Checkout["products"][number];
type Price = NonNullable<Checkout["prices"]>[string][number];
type AttachedField = NonNullable<Checkout["attached_custom_fields"]>[number];
type AddressKey = keyof Checkout["billing_address_fields"];
interface Issue {
  loc: (string | number)[];
  msg: string;
}
/** The confirm's answer also carries the buyer's customer session token: null while the processor has not settled. */
type Answered = Checkout & Partial<Pick<CheckoutPublicConfirmed, "customer_session_token">>;
type Answer = { ok: true; checkout: Answered } | { ok: false; status: number; error: string; detail: string | Issue[] };
type Refusal = Extract<Answer, { ok: false }>;

/** How long the page waits for the processor to settle a confirmed session before the server's page takes over. */
const SETTLE_WAIT_MS = 120_000;
const NOT_COMPLETED = "Your payment was not completed. Try again or use another payment method.";

/** What the session asks of the payment form now: charged once, the first of a subscription's payments, or saved only. */
const termsOf = (session: Checkout): PaymentTerms => ({
  mode: !session.is_payment_required ? "setup" : session.product?.is_recurring ? "subscription" : "payment",
  amount: session.total_amount,
  currency: session.currency,
});

/** The errors that mean the session can no longer be changed: the server's page says what became of it. */
const CLOSED_ERRORS = new Set(["NotOpenCheckout", "ExpiredCheckoutError", "ResourceNotFound"]);

const ADDRESS_LABELS: Record<AddressKey, [string, string]> = {
  country: ["Country", "country"],
  line1: ["Address", "address-line1"],
  line2: ["Address line 2", "address-line2"],
  postal_code: ["Postal code", "postal-code"],
  city: ["City", "address-level2"],
  state: ["State / Province", "address-level1"],
};

const formats = new Map<string, Intl.NumberFormat>();
/** The session's currency is written by the format the server sent, without building an `Intl.NumberFormat`. */
const money = (cents: number, currency: string): string => {
  if (data.view === "form" && currency === data.money.currency) return formatMoney(cents, data.money.format);
  let format = formats.get(currency);
  if (!format) {
    format = new Intl.NumberFormat("en", { style: "currency", currency: currency.toUpperCase() });
    formats.set(currency, format);
  }
  return format.format(cents / 100);
};

const interval = (product: Product): string | null => {
  if (!product.recurring_interval) return null;
  const count = product.recurring_interval_count ?? 1;
  return count === 1 ? product.recurring_interval : `${count} ${product.recurring_interval}s`;
};

function priceLabel(price: Price, currency: string): string {
  switch (price.amount_type) {
    case "fixed":
      return money(price.price_amount, currency);
    case "custom":
      return "Pay what you want";
    case "seat_based":
      return `From ${money(price.seat_tiers.tiers[0]?.price_per_seat ?? 0, currency)} per seat`;
    case "metered_unit":
      return `${money(Number(price.unit_amount), currency)} per ${price.meter.name} unit`;
  }
}

function productLabel(product: Product, checkout: Checkout): string {
  const prices = (checkout.prices?.[product.id] ?? []).map((price) => priceLabel(price, checkout.currency)).join(" + ");
  const every = interval(product);
  return every ? `${prices} / ${every}` : prices;
}

/** Talks to `/v1/checkouts/client/{client_secret}`: the only place anything is computed. */
function clientApi(secret: string) {
  const base = `/v1/checkouts/client/${encodeURIComponent(secret)}`;
  return async (method: "GET" | "PATCH" | "POST", path: string, body?: Changes | CheckoutConfirm): Promise<Answer> => {
    try {
      const response = await fetch(base + path, {
        method,
        headers: body ? { "content-type": "application/json" } : {},
        body: body ? JSON.stringify(body) : null,
        credentials: "omit",
        cache: "no-store",
      });
      const payload = (await response.json().catch(() => null)) as unknown;
      if (response.ok) return { ok: true, checkout: payload as Answered };
      const refusal = payload as { error?: string; detail?: string | Issue[] } | null;
      return {
        ok: false,
        status: response.status,
        error: refusal?.error ?? "",
        detail: refusal?.detail ?? `The server answered ${response.status}.`,
      };
    } catch {
      return { ok: false, status: 0, error: "", detail: "The server could not be reached. Check your connection and try again." };
    }
  };
}

function checkoutForm(root: HTMLElement, initial: Checkout, payment: PaymentForm, post: PostToParent): void {
  let checkout = initial;
  const api = clientApi(initial.client_secret);
  const fields = new Map<string, Field>();
  const register = (name: string, target: Field): Field => {
    target.control.name = name;
    fields.set(name, target);
    return target;
  };

  // --- The order: products, price inputs, amounts ------------------------------------------
  const summary = h("section", { class: "summary", "aria-labelledby": "summary-title" });
  const amounts = h("div", { "aria-live": "polite" });
  const picker = h("fieldset", { class: "picker" }, h("legend", {}, "Choose a product"));
  const priceInputs = h("div");
  const gallery = h("div", { class: "media", hidden: true });
  summary.append(h("h2", { id: "summary-title" }, "Order summary"), gallery, picker, priceInputs, amounts);

  for (const product of initial.products) {
    const radio = input({ type: "radio", name: "product_id", value: product.id });
    radio.addEventListener("change", () => void change({ product_id: product.id }));
    picker.append(
      h(
        "label",
        { class: "choice" },
        radio,
        h("span", { class: "choice-name" }, product.name),
        h("span", { class: "choice-price" }, productLabel(product, initial)),
      ),
    );
  }
  picker.hidden = initial.products.length < 2;

  let priceInputsFor: string | null = null;
  function drawPriceInputs(): void {
    if (priceInputsFor === checkout.product_id) return;
    priceInputsFor = checkout.product_id;
    priceInputs.replaceChildren();
    for (const price of checkout.product ? (checkout.prices?.[checkout.product.id] ?? []) : []) {
      if (price.amount_type === "custom") {
        const amount = register(
          "amount",
          field(
            `Amount (${checkout.currency.toUpperCase()})`,
            input({
              type: "number",
              inputmode: "decimal",
              step: "0.01",
              min: (price.minimum_amount ?? 0) / 100,
              max: price.maximum_amount == null ? null : price.maximum_amount / 100,
              value: checkout.amount / 100,
            }),
          ),
        );
        amount.control.addEventListener("change", () => void change({ amount: Math.round(Number(amount.control.value) * 100) }));
        priceInputs.append(amount.wrapper);
      }
      if (price.amount_type === "seat_based") {
        const seats = register(
          "seats",
          field(
            "Seats",
            input({
              type: "number",
              inputmode: "numeric",
              step: 1,
              min: checkout.min_seats ?? 1,
              max: checkout.max_seats,
              value: checkout.seats ?? 1,
            }),
          ),
        );
        seats.control.addEventListener("change", () => void change({ seats: Number(seats.control.value) }));
        priceInputs.append(seats.wrapper);
      }
    }
  }

  /**
   * The selected product's images: the first large, the others as thumbnails that take its place.
   * Each keeps its box before it loads (width and height, an aspect ratio in CSS), so nothing moves.
   */
  let galleryFor: string | null = null;
  function drawMedia(): void {
    if (galleryFor === checkout.product_id) return;
    galleryFor = checkout.product_id;
    const product = checkout.product;
    const images = (product?.medias ?? []).filter((media) => media.mime_type.startsWith("image/"));
    gallery.hidden = images.length === 0;
    const [first] = images;
    if (!product || !first) {
      gallery.replaceChildren();
      return;
    }
    const main = h("img", { class: "media-main", src: first.public_url, alt: product.name, width: 800, height: 600 });
    const thumbnails = images.map((media, index) => {
      const button = h(
        "button",
        { type: "button", class: "media-thumb", "aria-pressed": index === 0 ? "true" : "false" },
        h("img", { src: media.public_url, alt: `${product.name}, image ${index + 1} of ${images.length}`, width: 64, height: 64 }),
      );
      button.addEventListener("click", () => {
        main.src = media.public_url;
        for (const other of gallery.querySelectorAll(".media-thumb")) other.setAttribute("aria-pressed", String(other === button));
      });
      return h("li", {}, button);
    });
    gallery.replaceChildren(main, ...(images.length > 1 ? [h("ul", { class: "media-thumbs" }, ...thumbnails)] : []));
  }

  function drawAmounts(): void {
    const product = checkout.product;
    const line = (label: string, value: string, extra?: string) =>
      h("div", { class: `line ${extra ?? ""}` }, h("dt", {}, label), h("dd", {}, value));
    const list = h("dl", { class: "amounts" }, line("Subtotal", money(checkout.amount, checkout.currency)));
    if (checkout.discount)
      list.append(line(`Discount (${checkout.discount.name})`, `−${money(checkout.discount_amount, checkout.currency)}`));
    list.append(
      line("Tax", checkout.tax_amount === null ? "Calculated from your address" : money(checkout.tax_amount, checkout.currency)),
      line("Total", money(checkout.total_amount, checkout.currency), "total"),
    );
    const every = product ? interval(product) : null;
    const terms: string[] = [];
    if (checkout.trial_end)
      terms.push(
        `Free trial until ${new Date(checkout.trial_end).toLocaleDateString("en", { dateStyle: "long" })}; nothing is charged today.`,
      );
    if (every) terms.push(`Renews every ${every} until cancelled.`);
    if (every && checkout.discount?.duration === "once") terms.push("The discount applies to the first payment only.");
    if (every && checkout.discount && "duration_in_months" in checkout.discount)
      terms.push(`The discount applies for ${checkout.discount.duration_in_months} month(s).`);
    amounts.replaceChildren(
      h("h3", { class: "product-name" }, product?.name ?? "No product selected"),
      product?.description ? h("p", { class: "description" }, product.description) : "",
      list,
      ...terms.map((term) => h("p", { class: "terms" }, term)),
    );
  }

  // --- The buyer: contact, business, address, tax ID, discount, custom fields, payment ------------
  const form = h("form", { class: "details", novalidate: true, "aria-labelledby": "details-title" });
  const alert = h("div", { class: "alert", role: "alert", tabindex: -1, hidden: true });
  const email = register("customer_email", field("Email", input({ type: "email", autocomplete: "email", required: true, maxlength: 320 })));
  const name = register("customer_name", field("Name", input({ autocomplete: "name", maxlength: 256 })));
  const business = register("is_business_customer", field("I'm purchasing as a business", input({ type: "checkbox" })));
  const billingName = register("customer_billing_name", field("Business name", input({ autocomplete: "organization", maxlength: 256 })));
  const taxId = register("customer_tax_id", field("Tax ID", input({ maxlength: 64 }), "VAT, GST or other tax number"));
  const address = h("fieldset", { class: "address" }, h("legend", {}, "Billing address"));
  const addressFields = {} as Record<AddressKey, Field>;
  for (const key of Object.keys(ADDRESS_LABELS) as AddressKey[]) {
    const [label, autocomplete] = ADDRESS_LABELS[key];
    const control =
      key === "country"
        ? h("select", { autocomplete }, h("option", { value: "" }, "Select a country"), ...countryOptions())
        : input({ autocomplete, maxlength: 256 });
    addressFields[key] = register(`customer_billing_address.${key}`, field(label, control));
    control.addEventListener("change", () => {
      const changes = addressChanges();
      if (changes) void change(changes);
    });
    address.append(addressFields[key].wrapper);
  }
  const discountCode = register("discount_code", field("Discount code", input({ maxlength: 256, autocomplete: "off" })));
  const applyDiscount = h("button", { type: "button", class: "button secondary" }, "Apply");
  const discountRow = h("div", { class: "row discount" }, discountCode.wrapper, applyDiscount);
  const custom = customFields(checkout.attached_custom_fields ?? [], register);
  const paymentSection = h("fieldset", { class: "payment" }, h("legend", {}, "Payment"));
  payment.mount(paymentSection, termsOf(checkout));
  const submit = h("button", { type: "submit", class: "button primary" });
  const back = checkout.return_url ? h("a", { class: "back", href: checkout.return_url }, `Back to ${checkout.organization.name}`) : null;

  form.append(
    h("h2", { id: "details-title" }, "Your details"),
    alert,
    email.wrapper,
    name.wrapper,
    business.wrapper,
    billingName.wrapper,
    taxId.wrapper,
    address,
    discountRow,
    ...custom.map((entry) => entry.wrapper),
    paymentSection,
    submit,
  );
  const layout = h("div", { class: "layout" }, summary, form);
  root.append(...(back ? [h("nav", { class: "top" }, back)] : []), layout);

  function countryOptions(): HTMLOptionElement[] {
    const countries = JSON.parse(document.getElementById(COUNTRIES_BLOCK_ID)?.textContent ?? "[]") as CountryChoice[];
    return countries.map(({ code, label }) => h("option", { value: code }, label));
  }

  function addressChanges(): Changes | null {
    const country = addressFields.country.control.value;
    if (!country) return null;
    const entries = (Object.keys(addressFields) as AddressKey[])
      .filter((key) => key !== "country" && !addressFields[key].wrapper.hidden)
      .map((key) => [key, addressFields[key].control.value.trim() || null]);
    return { customer_billing_address: { ...Object.fromEntries(entries), country } as Changes["customer_billing_address"] };
  }

  business.control.addEventListener("change", () => void change({ is_business_customer: (business.control as HTMLInputElement).checked }));
  taxId.control.addEventListener("change", () => void change({ customer_tax_id: taxId.control.value.trim() || null }));
  applyDiscount.addEventListener("click", () => void change({ discount_code: discountCode.control.value.trim() || null }));
  discountCode.control.addEventListener("keydown", (event) => {
    if ((event as KeyboardEvent).key !== "Enter") return;
    event.preventDefault();
    applyDiscount.click();
  });

  /** Everything the buyer entered, as the confirm body carries it. */
  function collect(): Changes {
    const value = (target: Field) => target.control.value.trim() || null;
    const isBusiness = (business.control as HTMLInputElement).checked;
    const changes: Changes = {
      product_id: checkout.product_id,
      customer_name: value(name),
      is_business_customer: isBusiness,
      ...(value(email) ? { customer_email: value(email) } : {}),
      ...(isBusiness ? { customer_billing_name: value(billingName), customer_tax_id: value(taxId) } : {}),
      ...(addressChanges() ?? {}),
      ...(value(discountCode) && checkout.allow_discount_codes ? { discount_code: value(discountCode) } : {}),
    };
    if (custom.length) changes.custom_field_data = Object.fromEntries(custom.map((entry) => [entry.slug, entry.value()]));
    return changes;
  }

  /** The buyer's details for the processor, as the confirm will set them on the session. */
  function billingDetails(): BillingDetails {
    const value = (target: Field) => (target.wrapper.hidden ? null : target.control.value.trim() || null);
    const isBusiness = (business.control as HTMLInputElement).checked;
    return {
      name: (isBusiness ? value(billingName) : null) ?? value(name),
      email: value(email),
      phone: null,
      address: {
        line1: value(addressFields.line1),
        line2: value(addressFields.line2),
        city: value(addressFields.city),
        state: value(addressFields.state),
        postal_code: value(addressFields.postal_code),
        country: address.hidden ? null : value(addressFields.country),
      },
    };
  }

  /** Draws what depends on the session's state; the fields the buyer is typing in stay as they are. */
  function apply(next: Checkout): void {
    checkout = next;
    for (const radio of picker.querySelectorAll<HTMLInputElement>("input[type=radio]")) radio.checked = radio.value === checkout.product_id;
    drawMedia();
    drawPriceInputs();
    drawAmounts();
    (business.control as HTMLInputElement).checked = checkout.is_business_customer;
    billingName.show(checkout.is_business_customer, true);
    taxId.show(checkout.is_business_customer);
    const addressNeeded = checkout.is_payment_form_required || checkout.is_business_customer || checkout.require_billing_address;
    address.hidden = !addressNeeded;
    for (const key of Object.keys(addressFields) as AddressKey[]) {
      const mode = checkout.billing_address_fields[key];
      addressFields[key].show(addressNeeded && mode !== "disabled", mode === "required");
    }
    discountRow.hidden = !(checkout.allow_discount_codes && checkout.is_discount_applicable);
    discountCode.show(!discountRow.hidden);
    paymentSection.hidden = !checkout.is_payment_form_required;
    const every = checkout.product ? interval(checkout.product) : null;
    submit.textContent = checkout.is_payment_required
      ? `Pay ${money(checkout.total_amount, checkout.currency)}`
      : checkout.trial_end
        ? "Start free trial"
        : every
          ? "Subscribe"
          : "Complete order";
    submit.disabled = checkout.is_payment_form_required && !payment.ready;
  }

  function fill(): void {
    email.control.value = checkout.customer_email ?? "";
    name.control.value = checkout.customer_name ?? "";
    billingName.control.value = checkout.customer_billing_name ?? "";
    taxId.control.value = checkout.customer_tax_id ?? "";
    for (const key of Object.keys(addressFields) as AddressKey[])
      addressFields[key].control.value = checkout.customer_billing_address?.[key] ?? "";
  }

  function clearErrors(): void {
    alert.hidden = true;
    alert.replaceChildren();
    for (const target of fields.values()) setFieldError(target, null);
  }

  function showAlert(message: string): void {
    alert.replaceChildren(h("p", {}, message));
    alert.hidden = false;
    alert.focus();
  }

  /** A refusal the buyer can act on next to its field; the others in the alert at the top. */
  function showProblem(answer: Refusal): void {
    if (typeof answer.detail === "string") {
      showAlert(answer.detail);
      return;
    }
    const loose: string[] = [];
    let first: Field | null = null;
    for (const issue of answer.detail) {
      const target = fields.get(issue.loc.slice(1).join("."));
      if (target && !target.wrapper.hidden) {
        setFieldError(target, issue.msg);
        first ??= target;
      } else loose.push(issue.msg);
    }
    if (loose.length) showAlert(loose.join(" "));
    else first?.control.focus();
  }

  let queue: Promise<unknown> = Promise.resolve();
  /** One request at a time, in the order the buyer made the changes. */
  function serialized<T>(run: () => Promise<T>): Promise<T> {
    const next = queue.then(run);
    queue = next.catch(() => undefined);
    return next;
  }

  async function change(changes: Changes): Promise<void> {
    return serialized(async () => {
      form.setAttribute("aria-busy", "true");
      const answer = await api("PATCH", "", changes);
      form.removeAttribute("aria-busy");
      clearErrors();
      if (answer.ok) apply(answer.checkout);
      else if (CLOSED_ERRORS.has(answer.error)) window.location.reload();
      else showProblem(answer);
    });
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void serialized(async () => {
      clearErrors();
      submit.disabled = true;
      form.setAttribute("aria-busy", "true");
      try {
        const token = checkout.is_payment_form_required
          ? await payment.tokenize({ terms: termsOf(checkout), billing: billingDetails() })
          : null;
        if (checkout.is_payment_form_required && token === null) return;
        const answer = await api("POST", "/confirm", { ...collect(), ...(token ? { confirmation_token_id: token } : {}) });
        if (answer.ok) {
          if (answer.checkout.customer_session_token === null) await finishWithProcessor(answer.checkout);
          else succeed(answer.checkout);
          return;
        }
        if (answer.error === "PaymentError" && typeof answer.detail === "string") {
          // Declined: the session is open again for another card; a processing failure closed it.
          const fresh = await api("GET", "");
          if (!fresh.ok || fresh.checkout.status !== "open") {
            window.location.reload();
            return;
          }
          apply(fresh.checkout);
          payment.showRefusal(answer.detail);
          return;
        }
        if (CLOSED_ERRORS.has(answer.error)) window.location.reload();
        else showProblem(answer);
      } finally {
        form.removeAttribute("aria-busy");
        submit.disabled = checkout.is_payment_form_required && !payment.ready;
      }
    });
  });

  /**
   * The processor has not settled the confirmed session: the buyer finishes 3-D Secure on the page
   * when it asks, then the page waits for the session to leave `confirmed`. Only the processor's
   * word (its event, or the recovery job asking it) completes the session, never this page.
   */
  async function finishWithProcessor(confirmed: Checkout): Promise<void> {
    submit.textContent = "Confirming your payment…";
    const secret = confirmed.payment_processor_metadata.intent_client_secret;
    const refusal = secret && payment.authenticate ? await payment.authenticate(secret) : null;
    const settled = await untilSettled();
    if (settled?.status === "succeeded") succeed(settled);
    else if (settled?.status === "open") {
      apply(settled);
      payment.showRefusal(refusal ?? NOT_COMPLETED);
    }
    // Failed, expired, or still waiting: the server's page for the session says which.
    else window.location.reload();
  }

  /** The session once it is no longer `confirmed`, asked at a slowing pace; null if it still is after the wait. */
  async function untilSettled(): Promise<Checkout | null> {
    const deadline = Date.now() + SETTLE_WAIT_MS;
    for (let delay = 500; Date.now() < deadline; delay = Math.min(delay * 1.5, 3000)) {
      await new Promise((resolve) => window.setTimeout(resolve, delay));
      const fresh = await api("GET", "");
      if (fresh.ok && fresh.checkout.status !== "confirmed") return fresh.checkout;
      if (!fresh.ok && CLOSED_ERRORS.has(fresh.error)) return null;
    }
    return null;
  }

  function succeed(confirmed: Checkout): void {
    const target = confirmed.success_url;
    // The default success URL is this page's own confirmation: shown in place, even when embedded.
    const ownConfirmation = target.startsWith(`${confirmed.url}/`);
    post({ event: "confirmed" });
    post({ event: "success", successURL: target, redirect: !ownConfirmation });
    submit.textContent = "Payment complete";
    if (data.embedOrigin === null || ownConfirmation) window.location.assign(target);
  }

  fill();
  apply(checkout);
}

/** Custom fields attached to the session, drawn from their definitions whatever their type. */
function customFields(attached: AttachedField[], register: (name: string, target: Field) => Field) {
  return [...attached]
    .sort((a, b) => a.order - b.order)
    .map(({ custom_field: definition, required }) => {
      const properties = definition.properties;
      const label = properties.form_label ?? definition.name;
      const attributes = { required, placeholder: properties.form_placeholder ?? null };
      let control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
      let value: () => string | number | boolean | null;
      switch (definition.type) {
        case "text":
          control = definition.properties.textarea
            ? h("textarea", { ...attributes, minlength: definition.properties.min_length, maxlength: definition.properties.max_length })
            : input({ ...attributes, minlength: definition.properties.min_length, maxlength: definition.properties.max_length });
          value = () => control.value.trim() || null;
          break;
        case "number":
          control = input({ ...attributes, type: "number", step: 1, min: definition.properties.ge, max: definition.properties.le });
          value = () => (control.value === "" ? null : Number(control.value));
          break;
        case "date":
          control = input({ ...attributes, type: "date" });
          value = () => (control.value ? `${control.value}T00:00:00Z` : null);
          break;
        case "checkbox":
          control = input({ ...attributes, type: "checkbox" });
          value = () => (control as HTMLInputElement).checked;
          break;
        case "select":
          control = h(
            "select",
            attributes,
            h("option", { value: "" }, "Select an option"),
            ...definition.properties.options.map((option) => h("option", { value: option.value }, option.label)),
          );
          value = () => control.value || null;
          break;
      }
      const target = register(`custom_field_data.${definition.slug}`, field(label, control, properties.form_help_text));
      return { slug: definition.slug, wrapper: target.wrapper, value };
    });
}

const data = JSON.parse(document.getElementById("page-data")?.textContent ?? "null") as CheckoutPageData;

function start(): void {
  const post = embedMessenger(data.embedOrigin);
  if (data.view === "form") {
    const root = document.getElementById("checkout");
    if (!root) return;
    if (data.embedOrigin !== null)
      root
        .querySelector("header")
        ?.append(h("button", { type: "button", class: "button secondary close", "data-action": "close" }, "Close"));
    checkoutForm(root, data.checkout, paymentFormFor(data.paymentForm), post);
    root.setAttribute("aria-busy", "false");
  }
  wireCloseButtons(document, post);
  performance.mark("checkout-interactive");
  document.documentElement.dataset.ready = "true";
  post({ event: "loaded" });
}

start();
