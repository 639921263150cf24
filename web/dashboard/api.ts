// The dashboard's one way to the data: the same-origin proxy under /dashboard/api/, which forwards to
// the public API with the session's token (kept in an HttpOnly cookie the script never sees). Writes
// carry the session's CSRF token; an ended session sends the page back to the sign-in form.

export type Query = Record<string, string | number | boolean | readonly (string | number)[] | null | undefined>;

export interface ApiError {
  status: number;
  /** The API's `detail`, or each 422 entry's message with its field. */
  message: string;
  /** 422 entries by the last element of their `loc` (the field's name). */
  fields: Record<string, string>;
}

export type ApiResult<T> = { ok: true; status: number; body: T } | { ok: false; error: ApiError };

interface ValidationEntry {
  loc?: (string | number)[];
  msg?: string;
}

let csrfToken = "";
/** The organization every request names (an owner's token sees several). */
let organizationId = "";

export function configureApi(options: { csrfToken: string; organizationId: string }): void {
  csrfToken = options.csrfToken;
  organizationId = options.organizationId;
}

export const currentOrganizationId = (): string => organizationId;

export function queryString(query: Query): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === null || value === undefined || value === "") continue;
    if (Array.isArray(value)) for (const item of value as readonly (string | number)[]) params.append(key, String(item));
    else params.append(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

function errorOf(status: number, body: unknown): ApiError {
  const record = (typeof body === "object" && body !== null ? body : {}) as { detail?: unknown };
  if (Array.isArray(record.detail)) {
    const fields: Record<string, string> = {};
    const entries = record.detail as ValidationEntry[];
    for (const entry of entries) {
      const name = entry.loc?.at(-1);
      if (name !== undefined && entry.msg) fields[String(name)] = entry.msg;
    }
    return { status, message: entries.map((e) => `${(e.loc ?? []).slice(1).join(".")}: ${e.msg ?? ""}`).join("; "), fields };
  }
  const message = typeof record.detail === "string" ? record.detail : `The request failed (${status}).`;
  return { status, message, fields: {} };
}

/** Back to the sign-in form, saying why. */
export function sessionEnded(): never {
  window.location.assign("/dashboard/?reason=expired");
  throw new Error("session ended");
}

/** `/dashboard/api/` (the proxy to `/v1/`), or `/dashboard/api-ext/` for the dashboard's own reads. */
export type ApiBase = "/dashboard/api/" | "/dashboard/api-ext/";

export async function request<T>(
  method: "GET" | "POST" | "PATCH" | "DELETE",
  path: string,
  body?: unknown,
  base: ApiBase = "/dashboard/api/",
): Promise<ApiResult<T>> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (method !== "GET") headers["x-csrf-token"] = csrfToken;
  if (body !== undefined) headers["content-type"] = "application/json";
  let response: Response;
  try {
    response = await fetch(`${base}${path}`, {
      method,
      headers,
      credentials: "same-origin",
      body: body === undefined ? null : JSON.stringify(body),
    });
  } catch {
    return { ok: false, error: { status: 0, message: "The server could not be reached. Check the connection and try again.", fields: {} } };
  }
  if (response.status === 401) sessionEnded();
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  if (!response.ok) return { ok: false, error: errorOf(response.status, parsed) };
  return { ok: true, status: response.status, body: parsed as T };
}

export const get = <T>(path: string, query: Query = {}): Promise<ApiResult<T>> => request<T>("GET", `${path}${queryString(query)}`);

/** A list of the organization's resources (`organization_id` added, as an owner's token needs it). */
export const list = <T>(
  path: string,
  query: Query = {},
): Promise<ApiResult<{ items: T[]; pagination: { total_count: number; max_page: number } }>> =>
  get(path, { organization_id: organizationId, ...query });

/** Posts to the dashboard's own session routes (not the API). */
export async function sessionPost(path: string, body?: unknown): Promise<Response> {
  return fetch(`/dashboard/${path}`, {
    method: "POST",
    headers: { "x-csrf-token": csrfToken, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    credentials: "same-origin",
    body: body === undefined ? null : JSON.stringify(body),
  });
}
