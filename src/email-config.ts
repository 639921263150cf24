import { isIP } from "node:net";
import { ConfigError } from "./config-error.ts";

// How emails leave, as the environment says (`config.ts` reads the variables first).

/** An address and its display name, as a `From` header carries them. */
export interface Mailbox {
  readonly name: string | null;
  readonly address: string;
}

/** The SMTP server emails are handed to; the password stays in here and in no message. */
export interface SmtpConfig {
  readonly host: string;
  readonly port: number;
  /** `smtps://`: TLS from the first byte; `smtp://` upgrades with STARTTLS when the server offers it. */
  readonly secure: boolean;
  readonly auth: { readonly user: string; readonly pass: string } | null;
}

export interface EmailConfig {
  /** null without `SMTP_URL`: emails are written with status `kept` and never sent. */
  readonly smtp: SmtpConfig | null;
  readonly from: Mailbox;
}

// Deliberately plain: one `@`, no spaces or angle brackets; the mail server has the last word.
const ADDRESS = /^[^\s@<>"]+@[^\s@<>"]+$/;

/** `SMTP_URL`: `smtp://` or `smtps://`, user and password (percent-encoded) in the URL. The value is never echoed. */
function smtpOf(value: string | undefined): SmtpConfig | null {
  if (value === undefined) return null;
  const refuse = (why: string) => new ConfigError(`Invalid environment variable SMTP_URL: ${why}`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw refuse("not a URL (expected smtp://user:password@host:port or smtps://…)");
  }
  if (url.protocol !== "smtp:" && url.protocol !== "smtps:") throw refuse("the scheme must be smtp:// or smtps://");
  if (!url.hostname) throw refuse("no host");
  if ((url.pathname !== "" && url.pathname !== "/") || url.search || url.hash) throw refuse("no path, query or fragment is taken");
  const secure = url.protocol === "smtps:";
  let auth: SmtpConfig["auth"] = null;
  try {
    if (url.username) auth = { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) };
  } catch {
    throw refuse("the user or password is not valid percent-encoding");
  }
  return { host: url.hostname.replace(/^\[|\]$/g, ""), port: url.port ? Number(url.port) : secure ? 465 : 587, secure, auth };
}

/** `EMAIL_FROM`: `address@domain` or `Name <address@domain>`. */
function mailboxOf(value: string): Mailbox {
  const named = /^\s*(?:"([^"]*)"|([^<>"]*?))\s*<([^<>]*)>\s*$/.exec(value);
  const address = (named ? named[3] : value)!.trim();
  const name = named ? (named[1] ?? named[2] ?? "").trim() : "";
  if (!ADDRESS.test(address) || /[\r\n]/.test(value))
    throw new ConfigError(
      `Invalid environment variable EMAIL_FROM: expected address@domain or "Name <address@domain>" (got ${JSON.stringify(value)})`,
    );
  return { name: name || null, address };
}

/** Without `EMAIL_FROM`: no-reply at the public address's host, when it is a domain name. */
function defaultSender(publicBaseUrl: string): Mailbox {
  const host = new URL(publicBaseUrl).hostname;
  return { name: null, address: `no-reply@${isIP(host) || !host.includes(".") ? "localhost" : host}` };
}

export function emailOf(env: { SMTP_URL?: string; EMAIL_FROM?: string }, publicBaseUrl: string): EmailConfig {
  return {
    smtp: smtpOf(env.SMTP_URL),
    from: env.EMAIL_FROM === undefined ? defaultSender(publicBaseUrl) : mailboxOf(env.EMAIL_FROM),
  };
}
