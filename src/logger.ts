import type { FastifyRequest, FastifyServerOptions } from "fastify";

/** Token-shaped values (`polar_…`, client secrets) are cut out of anything logged. */
const SECRET_IN_TEXT = /polar_[a-z]+_[A-Za-z0-9]{8,}/g;
/** A local download link's signature is a bearer credential until the link expires. */
const SIGNATURE_IN_QUERY = /([?&]signature=)[^&#]*/g;
export const redactSecrets = (text: string): string =>
  text.replace(SECRET_IN_TEXT, "[REDACTED]").replace(SIGNATURE_IN_QUERY, "$1[REDACTED]");

/**
 * Where log lines go: JSON lines on stdout (what log shippers and `docker logs` read), a stream of
 * the caller's (tests read what would be shipped), or pino-pretty's readable lines for a person at
 * a terminal.
 */
export type LogOutput = { stream: NodeJS.WritableStream } | "stdout" | "pretty";

/** pino-pretty when stdout is a terminal outside production; JSON lines otherwise (pipes, files, services). */
export const terminalLogOutput = (env: string): LogOutput => (process.stdout.isTTY && env !== "production" ? "pretty" : "stdout");

/** The app's logger options. Redaction and serializers run before any output, pino-pretty's included. */
export function loggerOptions(level: string, output: LogOutput): FastifyServerOptions["logger"] {
  return {
    level,
    ...(typeof output === "object" ? { stream: output.stream } : {}),
    // A worker thread formats the lines, so a slow terminal does not hold the event loop.
    ...(output === "pretty"
      ? { transport: { target: "pino-pretty", options: { translateTime: "SYS:HH:MM:ss.l", ignore: "pid,hostname" } } }
      : {}),
    redact: {
      paths: ["req.headers.authorization", "req.headers.cookie", "*.token", "*.client_secret", "*.secret", "*.password"],
      censor: "[REDACTED]",
    },
    serializers: {
      req: (request: FastifyRequest) => ({
        id: request.id,
        method: request.method,
        url: redactSecrets(request.url ?? ""),
        remoteAddress: request.ip,
      }),
    },
  };
}
