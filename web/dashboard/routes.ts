// Every page of the dashboard, in the navigation's order. A page is a function building itself into
// `main` from the public API (through the proxy); add a page here to route to it. The first pattern
// that matches wins, so a fixed path (`/products/new`) comes before the `:id` beside it.
import { checkoutLinksPage } from "./checkout-links.ts";
import { customerPage, customersPage } from "./customers.ts";
import { discountsPage } from "./discounts.ts";
import { emailPage, emailsPage } from "./emails.ts";
import { orderPage, ordersPage } from "./orders.ts";
import { organizationsPage } from "./organizations.ts";
import { overviewPage } from "./overview.ts";
import { newProductPage, productPage, productsPage } from "./products.ts";
import type { DashboardRoute } from "./router.ts";
import { settingsPage } from "./settings.ts";
import { subscriptionPage, subscriptionsPage } from "./subscriptions.ts";
import { meterPage, usagePage } from "./usage.ts";
import { webhookEndpointPage, webhooksPage } from "./webhooks.ts";

export const ROUTES: readonly DashboardRoute[] = [
  { pattern: "/", title: "Overview", nav: "Overview", render: overviewPage },
  { pattern: "/products", title: "Products", nav: "Products", render: productsPage },
  { pattern: "/products/new", title: "New product", render: newProductPage },
  { pattern: "/products/:id", title: "Product", render: productPage },
  { pattern: "/orders", title: "Orders", nav: "Orders", render: ordersPage },
  { pattern: "/orders/:id", title: "Order", render: orderPage },
  { pattern: "/customers", title: "Customers", nav: "Customers", render: customersPage },
  { pattern: "/customers/:id", title: "Customer", render: customerPage },
  { pattern: "/subscriptions", title: "Subscriptions", nav: "Subscriptions", render: subscriptionsPage },
  { pattern: "/subscriptions/:id", title: "Subscription", render: subscriptionPage },
  { pattern: "/discounts", title: "Discounts", nav: "Discounts", render: discountsPage },
  { pattern: "/checkout-links", title: "Checkout links", nav: "Checkout links", render: checkoutLinksPage },
  { pattern: "/usage", title: "Usage", nav: "Usage", render: usagePage },
  { pattern: "/usage/:id", title: "Meter", render: meterPage },
  { pattern: "/webhooks", title: "Webhooks", nav: "Webhooks", render: webhooksPage },
  { pattern: "/webhooks/:id", title: "Webhook endpoint", render: webhookEndpointPage },
  { pattern: "/emails", title: "Emails", nav: "Emails", render: emailsPage },
  { pattern: "/emails/:id", title: "Email", render: emailPage },
  { pattern: "/settings", title: "Settings", nav: "Settings", render: settingsPage },
  { pattern: "/organizations", title: "Switch organization", render: organizationsPage },
];
