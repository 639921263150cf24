// Every page of the dashboard, in the navigation's order. A page is a function building itself into
// `main` from the public API (through the proxy); add a page here to route to it.
import { orderPage, ordersPage } from "./orders.ts";
import { organizationsPage } from "./organizations.ts";
import { overviewPage } from "./overview.ts";
import { newProductPage, productPage, productsPage } from "./products.ts";
import type { DashboardRoute } from "./router.ts";
import { webhookEndpointPage, webhooksPage } from "./webhooks.ts";

export const ROUTES: readonly DashboardRoute[] = [
  { pattern: "/", title: "Overview", nav: "Overview", render: overviewPage },
  { pattern: "/products", title: "Products", nav: "Products", render: productsPage },
  { pattern: "/products/new", title: "New product", render: newProductPage },
  { pattern: "/products/:id", title: "Product", render: productPage },
  { pattern: "/orders", title: "Orders", nav: "Orders", render: ordersPage },
  { pattern: "/orders/:id", title: "Order", render: orderPage },
  { pattern: "/webhooks", title: "Webhooks", nav: "Webhooks", render: webhooksPage },
  { pattern: "/webhooks/:id", title: "Webhook endpoint", render: webhookEndpointPage },
  { pattern: "/organizations", title: "Switch organization", render: organizationsPage },
];
