import Fastify, { type FastifyInstance } from "fastify";
import cors from "@fastify/cors";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { randomUUID } from "node:crypto";
import type { Config, TrustProxy } from "./config.ts";
import type { Deps } from "./context.ts";
import { ping } from "./db/connection.ts";
import { isMigrated } from "./db/migrate.ts";
import { registerAuth } from "./http/auth.ts";
import { realTime, registerRequestClock } from "./values/clock.ts";
import { registerErrorHandling } from "./http/error-handler.ts";
import { IDEMPOTENT_REPLAYED_HEADER, registerIdempotency } from "./http/idempotency.ts";
import { acceptEmptyJsonBodies } from "./http/json-body.ts";
import { parseQueryString } from "./http/query-string.ts";
import { registerDocumentation } from "./http/api-documentation.ts";
import { registerRateLimiting } from "./http/rate-limit.ts";
import { loggerOptions, redactSecrets, terminalLogOutput } from "./logger.ts";
import { observeRequests, registerMetricsRoute } from "./observability/metrics-endpoint.ts";
import type { PrometheusMetrics } from "./observability/prometheus-metrics.ts";
import { traceRequests } from "./observability/request-spans.ts";
import { compileResponseSerializer } from "./http/serialization.ts";
import { compileBodyValidator, paramsAjv } from "./http/validation.ts";
import { API_VERSION_HEADER, registerApiVersioning } from "./http/versioning.ts";
import { buildServices, type Services } from "./services.ts";
import { organizationRoutes } from "./modules/organizations/organizations.routes.ts";
import { checkoutRoutes } from "./modules/checkouts/checkouts.routes.ts";
import { checkoutPageRoutes } from "./modules/checkout-page/checkout-page.routes.ts";
import { createWebAssets } from "./pages/web-assets.ts";
import { portalPageRoutes } from "./modules/portal-page/portal-page.routes.ts";
import { createDashboardAccess, forwardInProcess } from "./modules/dashboard-page/dashboard-access.ts";
import { dashboardPageRoutes } from "./modules/dashboard-page/dashboard-page.routes.ts";
import { dashboardProxyRoutes } from "./modules/dashboard-page/dashboard-proxy.routes.ts";
import { dashboardOutboxRoutes } from "./modules/dashboard-page/dashboard-outbox.routes.ts";
import { LocalBlobStore } from "./adapters/blob-stores/local-blob-store.ts";
import { localBlobRoutes } from "./adapters/blob-stores/blob.routes.ts";
import { customerRoutes } from "./modules/customers/customers.routes.ts";
import { memberRoutes } from "./modules/customers/members.routes.ts";
import { customerSeatRoutes } from "./modules/customer-seats/customer-seats.routes.ts";
import { portalSeatRoutes } from "./modules/customer-portal/portal-seats.routes.ts";
import { portalMemberRoutes } from "./modules/customer-portal/portal-members.routes.ts";
import { portalCustomerSessionRoutes } from "./modules/customer-portal/portal-customer-session.routes.ts";
import { customerStateRoutes } from "./modules/customer-state/customer-state.routes.ts";
import { checkoutLinkRoutes } from "./modules/checkout-links/checkout-links.routes.ts";
import { customFieldRoutes } from "./modules/custom-fields/custom-fields.routes.ts";
import { discountRoutes } from "./modules/discounts/discounts.routes.ts";
import { productRoutes } from "./modules/products/products.routes.ts";
import { benefitGrantRoutes } from "./modules/benefits/benefit-grants.routes.ts";
import { benefitRoutes } from "./modules/benefits/benefits.routes.ts";
import { portalBenefitGrantRoutes } from "./modules/customer-portal/portal-benefit-grants.routes.ts";
import { eventRoutes } from "./modules/events/events.routes.ts";
import { eventTypeRoutes } from "./modules/events/event-types.routes.ts";
import { meterRoutes } from "./modules/meters/meters.routes.ts";
import { metricRoutes } from "./modules/metrics/metrics.routes.ts";
import { metricDashboardRoutes } from "./modules/metrics/metric-dashboards.routes.ts";
import { customerMeterRoutes } from "./modules/customer-meters/customer-meters.routes.ts";
import { portalMeterRoutes } from "./modules/customer-portal/portal-meters.routes.ts";
import { webhookRoutes } from "./modules/webhooks/webhooks.routes.ts";
import { licenseKeyRoutes } from "./modules/license-keys/license-keys.routes.ts";
import { fileRoutes } from "./modules/files/files.routes.ts";
import { portalDownloadableRoutes } from "./modules/customer-portal/portal-downloadables.routes.ts";
import { LICENSE_FILE_TAG, LICENSE_FILE_TAG_DESCRIPTION, licenseFileRoutes } from "./modules/license-keys/license-files.routes.ts";
import { portalLicenseKeyRoutes } from "./modules/customer-portal/portal-license-keys.routes.ts";
import { portalCustomerRoutes } from "./modules/customer-portal/portal-customers.routes.ts";
import { portalEmailUpdateRoutes } from "./modules/customer-portal/portal-email-update.routes.ts";
import { portalWalletRoutes } from "./modules/customer-portal/portal-wallets.routes.ts";
import { portalOrganizationRoutes } from "./modules/customer-portal/portal-organizations.routes.ts";
import { purchaseOfCheckout } from "./flows/purchase-summary.ts";
import { orderDocumentLinkRoutes } from "./modules/orders/order-document-links.routes.ts";
import { orderRoutes } from "./modules/orders/orders.routes.ts";
import { subscriptionRoutes } from "./modules/subscriptions/subscriptions.routes.ts";
import { portalSubscriptionRoutes } from "./modules/customer-portal/portal-subscriptions.routes.ts";
import { testClockRoutes } from "./modules/test-clock/test-clock.routes.ts";
import { portalOrderRoutes } from "./modules/customer-portal/portal-orders.routes.ts";
import { paymentRoutes } from "./modules/payments/payments.routes.ts";
import { stripeWebhookRoutes } from "./modules/processor-events/processor-events.routes.ts";
import { refundRoutes } from "./modules/refunds/refunds.routes.ts";
import { disputeRoutes } from "./modules/disputes/disputes.routes.ts";

const REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;

export interface BuildOptions {
  /** Log output: stdout by default, `false` for none (most tests), or a stream of its own. */
  logger?: false | { stream: NodeJS.WritableStream };
  /** The application's services, when the caller shares them with the worker; built here otherwise. */
  services?: Services;
  /** Prometheus metrics to count requests into; `/metrics` is served here when they are token-protected. */
  metrics?: PrometheusMetrics;
  /** Tracing was started (`startTracing`): each request gets a server span. */
  traced?: boolean;
}

/** TRUST_PROXY as Fastify takes it; a hop count as the function that trusts that many hops. */
const trustProxyOption = (trust: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) =>
  typeof trust === "number" ? (_address, hop) => hop < trust : typeof trust === "boolean" ? trust : [...trust];

/** The Fastify server itself: logging, limits, timeouts and routing options. */
function createServer(config: Config, options: BuildOptions) {
  return Fastify({
    logger: options.logger === false ? false : loggerOptions(config.logLevel, options.logger ?? terminalLogOutput(config.env)),
    bodyLimit: config.bodyLimitBytes,
    // Behind a load balancer the client is the address it forwards, where the operator says whom to believe.
    trustProxy: trustProxyOption(config.trustProxy),
    // Slow clients: all headers within headersMs and the whole request within requestMs (else 408),
    // idle kept-alive connections closed after keepAliveMs (longer than common load balancers' 60 s,
    // so the balancer closes first). Node checks the first two every `connectionsCheckingInterval`.
    requestTimeout: config.httpTimeouts.requestMs,
    keepAliveTimeout: config.httpTimeouts.keepAliveMs,
    http: {
      headersTimeout: config.httpTimeouts.headersMs,
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(config.httpTimeouts.headersMs / 4))),
    },
    // Parameters as long as a URL can be, so an overlong id reaches validation and answers 422.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 16_384, querystringParser: parseQueryString },
    requestIdHeader: false,
    genReqId: (request) => {
      const incoming = request.headers["x-request-id"];
      return typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
}
type App = ReturnType<typeof createServer>;

/** What every request goes through before any route: version, CORS, validation, request id, errors, bodies. */
async function registerProtocol(app: App, config: Config, traced: boolean): Promise<void> {
  // First, so every later hook runs in the request's span.
  if (traced) traceRequests(app, redactSecrets);
  // Then: a bad version is refused before CORS, authentication and routing see the request.
  registerApiVersioning(app);
  // Bearer tokens, no cookies: any origin may call; requested headers are allowed, as the hosted service does.
  await app.register(cors, { origin: "*", exposedHeaders: [API_VERSION_HEADER, IDEMPOTENT_REPLAYED_HEADER] });
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === "body" ? compileBodyValidator(schema) : paramsAjv.compile(schema)));
  app.setSerializerCompiler(compileResponseSerializer);
  app.addHook("onSend", async (request, reply) => {
    reply.header("x-request-id", request.id);
  });
  registerErrorHandling(app, config.bodyLimitBytes);
  acceptEmptyJsonBodies(app);
}

/** Who is calling, at what time, replayed or not, and how often. */
async function registerRequestHandling(app: App, deps: Deps, services: Services): Promise<void> {
  registerRequestClock(app);
  registerAuth(app, services.authenticators);
  registerIdempotency(app, { db: deps.db, now: deps.now });
  await registerRateLimiting(app, deps.config, deps.db, () => realTime(deps.now));
}

/** Every feature's API routes, in the order the OpenAPI document lists them. */
async function registerApiRoutes(app: App, deps: Deps, services: Services): Promise<void> {
  await app.register(organizationRoutes(services.organizations, services.accessTokens));
  await app.register(checkoutRoutes(services.checkouts, services.checkoutClient));
  await app.register(customerRoutes(services.customers, services.customerDeletion, services.customerSessions));
  await app.register(memberRoutes(services.members));
  await app.register(customerSeatRoutes(services.customerSeats));
  await app.register(customerStateRoutes(services.customerStates));
  await app.register(discountRoutes(services.discounts));
  await app.register(customFieldRoutes(services.customFields));
  await app.register(checkoutLinkRoutes(services.checkoutLinks, services.checkoutLinkRedirect));
  await app.register(productRoutes(services.products));
  await app.register(benefitRoutes(services.benefits, services.benefitDeletion, services.benefitGrants));
  await app.register(benefitGrantRoutes(services.benefitGrants));
  await app.register(portalBenefitGrantRoutes(services.portalBenefitGrants));
  await app.register(eventRoutes(services.events, deps.now));
  await app.register(eventTypeRoutes(services.eventTypes));
  await app.register(meterRoutes(services.meters, services.meterQuantities));
  await app.register(customerMeterRoutes(services.customerMeters));
  await app.register(metricRoutes(services.metrics));
  await app.register(metricDashboardRoutes(services.metricDashboards));
  await app.register(portalMeterRoutes(services.customerMeters));
  await app.register(webhookRoutes(services.webhooks));
  await app.register(licenseKeyRoutes(services.licenseKeys, services.licenseKeyUpdating));
  await app.register(fileRoutes(services.files, services.publicFiles));
  await app.register(portalDownloadableRoutes(services.downloadables));
  await app.register(licenseFileRoutes(services.licenseFiles));
  await app.register(portalLicenseKeyRoutes(services.licenseKeys, services.licenseFiles, deps.config));
  await app.register(portalCustomerRoutes(services.portalCustomers, services.portalPaymentMethods));
  await app.register(portalOrganizationRoutes(services.portalOrganizations));
  await app.register(portalEmailUpdateRoutes(services.portalEmailUpdates, deps.config));
  await app.register(portalWalletRoutes(services.portalWallets));
  await app.register(portalCustomerSessionRoutes(services.customerSessions, services.portalSignIn, deps.config));
  await app.register(portalMemberRoutes(services.portalMembers));
  await app.register(orderRoutes(services.orders, services.orderDocuments, services.draftOrders));
  await app.register(orderDocumentLinkRoutes(services.orderDocuments, { secret: deps.secret, now: deps.now }));
  await app.register(subscriptionRoutes(services.subscriptions, services.subscriptionUpdates));
  await app.register(paymentRoutes(services.paymentRecords));
  await app.register(refundRoutes(services.refunds, services.refundOrder));
  if (services.processorEvents) await app.register(stripeWebhookRoutes(services.processorEvents));
  await app.register(disputeRoutes(services.disputes));
  await app.register(portalSubscriptionRoutes(services.portalSubscriptions));
  await app.register(portalSeatRoutes(services.customerSeats, services.portalSubscriptions));
  // Only a sandbox deployment has a test clock; in production the paths do not exist.
  if (deps.config.environment === "sandbox") await app.register(testClockRoutes(services.testClock));
  await app.register(portalOrderRoutes(services.portalOrders, services.orderDocuments, services.portalOrderPayments));
}

/** The pages rendered on the server: the hosted checkout, the customer portal and the seller's dashboard, with their scripts. */
async function registerPages(app: App, deps: Deps, services: Services): Promise<void> {
  const webAssets = createWebAssets();
  await app.register(
    checkoutPageRoutes(services.checkoutClient, webAssets, {
      checkoutBaseUrl: deps.config.checkoutBaseUrl,
      paymentForm: services.checkoutPaymentForm,
      mediaOrigins: [new URL(deps.config.publicBaseUrl).origin, await services.blobs.downloadOrigin()],
      purchaseOf: (checkout) => purchaseOfCheckout(deps.db, deps, { id: checkout.id, benefits: checkout.product?.benefits ?? [] }),
    }),
  );
  // The customer portal's pages, at the `customer_portal_url` of a session (`/{slug}/portal`).
  await app.register(
    portalPageRoutes(
      {
        sessions: services.portalPageSessions,
        customers: services.portalCustomers,
        orders: services.portalOrders,
        documents: services.orderDocuments,
        subscriptions: services.portalSubscriptions,
        licenseKeys: services.licenseKeys,
        downloadables: services.downloadables,
        paymentMethods: services.portalPaymentMethods,
        paymentForm: services.checkoutPaymentForm,
        signIn: services.portalSignIn,
      },
      webAssets,
      deps.config,
    ),
  );
  // The seller's dashboard (`/dashboard/`): everything it shows and does is a request to this same
  // app's public API, made in-process with the session's token.
  const forward = forwardInProcess(app);
  const dashboard = { access: createDashboardAccess(services.authenticators, forward), secret: deps.secret, now: deps.now };
  await app.register(dashboardPageRoutes(dashboard, webAssets));
  await app.register(dashboardProxyRoutes(dashboard, forward));
  await app.register(dashboardOutboxRoutes(dashboard, services.emails));
}

/** The HTTP application: plugins, then infrastructure, then feature modules. */
export async function buildApp(deps: Deps, options: BuildOptions = {}): Promise<FastifyInstance> {
  const app = createServer(deps.config, options);
  await registerProtocol(app, deps.config, options.traced ?? false);
  await registerDocumentation(app, deps.config.publicBaseUrl, [{ name: LICENSE_FILE_TAG, description: LICENSE_FILE_TAG_DESCRIPTION }]);

  const services = options.services ?? buildServices(deps);
  await registerRequestHandling(app, deps, services);

  if (options.metrics) {
    observeRequests(app, options.metrics);
    if (deps.config.metrics && "token" in deps.config.metrics) registerMetricsRoute(app, options.metrics, deps.config.metrics.token);
  }

  app.get("/healthz", { schema: { hide: true } }, async () => ({ status: "ok" }));
  app.get("/readyz", { schema: { hide: true } }, async (_request, reply) => {
    try {
      await ping(deps.db);
      // A replica that cannot answer fails the lists this instance serves: out of rotation as well.
      if (deps.readDb !== deps.db) await ping(deps.readDb);
      if (!(await isMigrated(deps.db))) return reply.code(503).send({ status: "migrations pending" });
      return { status: "ready" };
    } catch {
      return reply.code(503).send({ status: "database unreachable" });
    }
  });

  // Locally stored documents are downloaded through the API itself; S3 links go to S3.
  if (services.blobs instanceof LocalBlobStore) await app.register(localBlobRoutes(services.blobs));

  await registerApiRoutes(app, deps, services);
  await registerPages(app, deps, services);
  return app;
}
