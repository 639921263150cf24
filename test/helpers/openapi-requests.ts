import fc from "fast-check";
import type { FastifyInstance, InjectOptions } from "fastify";
import { SecuritySchemeOf, type PrincipalKind } from "../../src/http/auth.ts";
import type { TestContext } from "./context.ts";
import {
  arbitraryOf,
  HOSTILE_VALUES,
  mutate,
  mutationChoice,
  RawJson,
  toJsonText,
  type IdSource,
  type JsonSchema,
} from "./schema-arbitraries.ts";

interface Parameter {
  name: string;
  in: "path" | "query" | "header";
  required?: boolean;
  style?: string;
  schema: JsonSchema;
}

interface DocumentedOperation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: { "application/json": { schema: JsonSchema } } };
  security?: Record<string, string[]>[];
  responses: Record<string, { content?: { "application/json"?: { schema: JsonSchema } } }>;
}

/** What a route requires of its caller, read back from the `security` the auth plugin documents from `requireAuth`. */
export interface OperationAuth {
  readonly kinds: readonly PrincipalKind[];
  readonly scopes: readonly string[];
}

export interface Operation {
  readonly method: Method;
  readonly path: string;
  readonly operationId: string;
  readonly parameters: readonly Parameter[];
  readonly body: JsonSchema | null;
  /** `null` for public routes. */
  readonly auth: OperationAuth | null;
  /** Documented JSON response schemas by status. */
  readonly responses: Readonly<Record<string, JsonSchema | undefined>>;
}

type Method = NonNullable<InjectOptions["method"]>;

const KIND_OF_SCHEME = new Map(Object.entries(SecuritySchemeOf).map(([kind, scheme]) => [scheme, kind as PrincipalKind]));

/** Every operation of the app's own `/openapi.json`. */
export async function documentedOperations(ctx: TestContext): Promise<Operation[]> {
  const document = (await ctx.request({ method: "GET", url: "/openapi.json" })).json<{
    paths: Record<string, Record<string, DocumentedOperation>>;
  }>();
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, operation]) => ({
      method: method.toUpperCase() as Method,
      path,
      operationId: operation.operationId,
      parameters: operation.parameters ?? [],
      body: operation.requestBody?.content["application/json"].schema ?? null,
      auth: operation.security
        ? {
            kinds: operation.security.map((scheme) => KIND_OF_SCHEME.get(Object.keys(scheme)[0]!)!),
            scopes: Object.values(operation.security[0]!)[0]!,
          }
        : null,
      responses: Object.fromEntries(
        Object.entries(operation.responses).map(([status, response]) => [status, response.content?.["application/json"]?.schema]),
      ),
    })),
  );
}

/** The license-key and sign-in rate limits would turn the portal's public routes into 429s after a few requests. */
export const EVERY_ROUTE_ENV = {
  LICENSE_KEY_RATE_LIMIT_PER_ADDRESS: "1000000",
  LICENSE_KEY_RATE_LIMIT_PER_KEY: "1000000",
  PORTAL_SIGN_IN_RATE_LIMIT_PER_CLIENT: "1000000",
  PORTAL_SIGN_IN_RATE_LIMIT_PER_EMAIL: "1000000",
};

/** Deletions last, so that the other operations meet the seeded rows. */
export const deletionsLast = (operations: Operation[]) =>
  operations.sort((a, b) => Number(a.method === "DELETE") - Number(b.method === "DELETE"));

/** A stable seed per operation: adding a route does not change what the others are sent. */
export const operationSeed = (operation: Operation, base: number) =>
  [...operation.operationId].reduce((hash, char) => (Math.imul(hash, 31) + char.charCodeAt(0)) | 0, base);

/** `METHOD /path` with every parameter written `{}` and no trailing slash: how both tables are compared. */
export const routeKey = (method: string, path: string) => `${method} ${path.replace(/\{[^}]+\}|:[^/]+/g, "{}").replace(/\/$/, "")}`;

/**
 * Fastify's own route table (`printRoutes`, one node per path segment, its methods in brackets)
 * as route keys, HEAD and OPTIONS left out (Fastify adds them to every GET and for CORS).
 */
export function fastifyRouteKeys(app: FastifyInstance): Set<string> {
  const keys = new Set<string>();
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split("\n")) {
    const match = /^([│ ]*)[├└]── (\S+)(?: \(([^)]+)\))?/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    stack.length = depth;
    stack.push(match[2]!);
    for (const method of (match[3] ?? "").split(", ").filter((m) => m && m !== "HEAD" && m !== "OPTIONS")) {
      keys.add(routeKey(method, stack.join("")));
    }
  }
  return keys;
}

export interface BuiltRequest {
  method: Method;
  url: string;
  headers: Record<string, string>;
  payload?: string;
}

type ParameterValues = Record<string, unknown>;

/** One query parameter as `name=value` pairs: arrays repeat the name, objects are deepObject (`name[key]`). */
function queryPairs(name: string, value: unknown): [string, string][] {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) return value.flatMap((item) => queryPairs(name, item));
  if (typeof value === "object" && !(value instanceof RawJson)) {
    return Object.entries(value).flatMap(([key, item]) => queryPairs(`${name}[${key}]`, item));
  }
  return [[name, value instanceof RawJson ? value.text : typeof value === "string" ? value : JSON.stringify(value)]];
}

const asText = (value: unknown) => (value instanceof RawJson ? value.text : typeof value === "string" ? value : JSON.stringify(value));

function build(
  operation: Operation,
  values: { path: ParameterValues; query: ParameterValues; header: ParameterValues; body: unknown },
): BuiltRequest {
  const path = operation.path.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(asText(values.path[name])));
  const query = new URLSearchParams(Object.entries(values.query).flatMap(([name, value]) => queryPairs(name, value))).toString();
  const headers: Record<string, string> = Object.fromEntries(
    Object.entries(values.header).map(([name, value]) => [name.toLowerCase(), asText(value)]),
  );
  if (values.body === undefined) return { method: operation.method, url: query ? `${path}?${query}` : path, headers };
  headers["content-type"] = "application/json";
  return { method: operation.method, url: query ? `${path}?${query}` : path, headers, payload: toJsonText(values.body) };
}

/**
 * The name an `IdSource` is asked for a path parameter: an `id` names the resource of the segment
 * before it (`/v1/orders/{id}` → `orders`); others are qualified by it (`client/client_secret`).
 */
function pathIdName(path: string, parameter: string): string {
  const segments = path.split("/");
  const before = segments[segments.indexOf(`{${parameter}}`) - 1] ?? "";
  return parameter === "id" ? before : `${before}/${parameter}`;
}

/**
 * The one header parameter is `Idempotency-Key`: a fresh UUID each time, since a key reused with
 * another request is (rightly) refused and would hide the request behind it.
 */
const headerValue = fc.uuid({ version: 4 });

/** A path value that stays a segment of its route: an empty one, `.` or `..` would be another route's path. */
const isOwnSegment = (value: unknown) => !["", ".", ".."].includes(asText(value));

function parameterArbitraries(operation: Operation, location: Parameter["in"], ids: IdSource) {
  const parameters = operation.parameters.filter((parameter) => parameter.in === location);
  const arbitraries = Object.fromEntries(
    parameters.map((parameter) => [
      parameter.name,
      location === "header"
        ? headerValue
        : location === "path"
          ? arbitraryOf(parameter.schema, ids, pathIdName(operation.path, parameter.name)).filter(isOwnSegment)
          : arbitraryOf(parameter.schema, ids, parameter.name),
    ]),
  );
  const requiredKeys = parameters.filter((parameter) => parameter.required).map((parameter) => parameter.name);
  // Lists take many optional filters: half the requests send only the required ones, or one bad
  // filter would refuse nearly every request.
  return fc.oneof(
    fc.record(Object.fromEntries(requiredKeys.map((key) => [key, arbitraries[key]!]))),
    fc.record(arbitraries, { requiredKeys }),
  );
}

/** Requests valid for the operation's documented parameters and body. */
export function validRequests(operation: Operation, ids: IdSource): fc.Arbitrary<BuiltRequest> {
  return validParts(operation, ids).map((values) => build(operation, values));
}

function validParts(operation: Operation, ids: IdSource) {
  return fc.record({
    path: parameterArbitraries(operation, "path", ids),
    query: parameterArbitraries(operation, "query", ids),
    header: parameterArbitraries(operation, "header", ids),
    body: operation.body ? arbitraryOf(operation.body, ids) : fc.constant(undefined),
  });
}

/**
 * Valid requests broken in one place: a path, query or header parameter given a hostile value, or
 * the body mutated (a field dropped or replaced, or the whole body replaced).
 */
export function invalidRequests(operation: Operation, ids: IdSource): fc.Arbitrary<BuiltRequest> {
  const locations = [...operation.parameters.map((parameter) => parameter.in), ...(operation.body ? (["body"] as const) : [])];
  if (locations.length === 0) return validRequests(operation, ids);
  return fc.tuple(validParts(operation, ids), fc.nat(), mutationChoice).map(([values, pick, choice]) => {
    const location = locations[pick % locations.length]!;
    if (location === "body") return build(operation, { ...values, body: mutate(values.body, choice) });
    const names = operation.parameters.filter((parameter) => parameter.in === location).map((parameter) => parameter.name);
    const name = names[choice.place % names.length]!;
    // Path values must stay their route's segment; headers must stay ASCII.
    const hostile = HOSTILE_VALUES.filter((value) => location === "query" || (isOwnSegment(value) && /^[\x20-\x7e]*$/.test(asText(value))));
    const replaced = { ...values[location], [name]: hostile[choice.hostile % hostile.length] };
    return build(operation, { ...values, [location]: replaced });
  });
}

/**
 * One request of the operation aimed at real rows: every path parameter a real id where `ids`
 * has one, the required query parameters and a body drawn (with `seed`) from their schemas.
 */
export function requestAtRealIds(operation: Operation, ids: IdSource, seed: number): BuiltRequest {
  const required = operation.parameters.filter((parameter) => parameter.in === "query" && parameter.required);
  const parts = fc.record({
    query: fc.record(Object.fromEntries(required.map((parameter) => [parameter.name, arbitraryOf(parameter.schema, ids, parameter.name)]))),
    body: operation.body ? arbitraryOf(operation.body, ids) : fc.constant(undefined),
    path: parameterArbitraries(operation, "path", ids),
  });
  const [sampled] = fc.sample(parts, { seed, numRuns: 1 });
  const path = Object.fromEntries(
    operation.parameters
      .filter((parameter) => parameter.in === "path")
      .map((parameter) => [parameter.name, ids(pathIdName(operation.path, parameter.name)) ?? sampled!.path[parameter.name]]),
  );
  return build(operation, { ...sampled!, path, header: {} });
}
