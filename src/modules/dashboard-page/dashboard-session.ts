import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { openSecret, sealSecret } from "../../values/sealed-secrets.ts";

/**
 * The dashboard's session lives in one cookie: the access token the seller pasted, the organization
 * chosen and a random nonce, sealed with the server secret (AES-256-GCM, `values/sealed-secrets.ts`).
 * The browser holds it but can neither read it (HttpOnly, and sealed) nor forge one; the server keeps
 * no row, so signing out is forgetting the cookie and a revoked token ends every session at once.
 */

export const DASHBOARD_PATH = "/dashboard";
export const SESSION_COOKIE = "dashboard_session";
export const CSRF_HEADER = "x-csrf-token";
const SEAL_PURPOSE = "dashboard-session";
const CSRF_PURPOSE = "dashboard-csrf";
/** A sealed session older than this is refused: a forgotten browser does not stay signed in. */
export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;
/** Longer cookies were not written by this server (a sealed session is a few hundred bytes). */
const MAX_COOKIE_LENGTH = 2048;

export interface DashboardSession {
  token: string;
  /** Null until the seller picks one of the organizations the token sees. */
  organizationId: string | null;
  /** Random per sign-in; the CSRF token is derived from it. */
  nonce: string;
  issuedAtMs: number;
}

interface SealedFields {
  t: string;
  o: string | null;
  n: string;
  i: number;
}

export function newSession(token: string, nowMs: number): DashboardSession {
  return { token, organizationId: null, nonce: randomBytes(18).toString("base64url"), issuedAtMs: nowMs };
}

export function sealSession(secret: string, session: DashboardSession): string {
  const fields: SealedFields = { t: session.token, o: session.organizationId, n: session.nonce, i: session.issuedAtMs };
  return sealSecret(secret, SEAL_PURPOSE, JSON.stringify(fields));
}

const isFields = (value: unknown): value is SealedFields => {
  const v = value as Partial<SealedFields> | null;
  return (
    typeof v === "object" &&
    v !== null &&
    typeof v.t === "string" &&
    (v.o === null || typeof v.o === "string") &&
    typeof v.n === "string" &&
    typeof v.i === "number"
  );
};

/** The session a cookie carries, or null when it is absent, altered, sealed by another secret, or too old. */
export function openSession(secret: string, sealed: string | null, nowMs: number): DashboardSession | null {
  if (sealed === null || sealed.length > MAX_COOKIE_LENGTH) return null;
  let fields: unknown;
  try {
    fields = JSON.parse(openSecret(secret, SEAL_PURPOSE, sealed));
  } catch {
    return null;
  }
  if (!isFields(fields) || nowMs - fields.i > SESSION_LIFETIME_MS || fields.i > nowMs + 60_000) return null;
  return { token: fields.t, organizationId: fields.o, nonce: fields.n, issuedAtMs: fields.i };
}

/** `Secure` wherever the dashboard is served over https; `Max-Age` ends it with the session's lifetime. */
export const sessionCookie = (sealed: string, secure: boolean): string =>
  `${SESSION_COOKIE}=${sealed}; Path=${DASHBOARD_PATH}; HttpOnly; SameSite=Strict; Max-Age=${SESSION_LIFETIME_MS / 1000}${secure ? "; Secure" : ""}`;

export const clearedSessionCookie = (secure: boolean): string =>
  `${SESSION_COOKIE}=; Path=${DASHBOARD_PATH}; HttpOnly; SameSite=Strict; Max-Age=0${secure ? "; Secure" : ""}`;

/** The CSRF token of a session: a keyed hash of its nonce, so it is bound to this sign-in and nothing else. */
export const csrfTokenOf = (secret: string, session: DashboardSession): string =>
  createHmac("sha256", secret).update(`${CSRF_PURPOSE}:${session.nonce}`).digest("base64url");

export function csrfMatches(secret: string, session: DashboardSession, presented: unknown): boolean {
  if (typeof presented !== "string" || presented.length > 128) return false;
  const expected = Buffer.from(csrfTokenOf(secret, session));
  const given = Buffer.from(presented);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
