import { simpleParser, type ParsedMail } from "mailparser";
import { createServer, type AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { createTestContext, type TestContext } from "./context.ts";

/** A real SMTP server on 127.0.0.1 for a test file: it takes mail for one user and parses what it receives. */
export interface TestSmtpServer {
  /** `smtp://user:password@127.0.0.1:port`: the value of `SMTP_URL`. */
  readonly url: string;
  readonly password: string;
  /** Every message received, parsed, in order. */
  readonly received: ParsedMail[];
  /** Recipients answered `550` (a permanent refusal). */
  readonly refused: Set<string>;
  /** Recipients answered `451` (try again later). */
  readonly deferred: Set<string>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** A port nothing listens on yet, so the server can be started (and stopped) there later. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** Creates the server on its port, not yet listening: `start` and `stop` as a test's outage needs. */
export async function testSmtpServer(): Promise<TestSmtpServer> {
  const port = await freePort();
  const password = "s3cret-smtp-Pa55";
  const received: ParsedMail[] = [];
  const refused = new Set<string>();
  const deferred = new Set<string>();
  let server: SMTPServer | null = null;
  const build = () =>
    new SMTPServer({
      disabledCommands: ["STARTTLS"],
      // The mailer keeps pooled connections open: a stopped server drops them at once.
      closeTimeout: 50,
      allowInsecureAuth: true,
      logger: false,
      onAuth(auth, _session, callback) {
        if (auth.username === "mailer" && auth.password === password) callback(null, { user: auth.username });
        else callback(new Error("Invalid username or password"));
      },
      onRcptTo(address, _session, callback) {
        if (refused.has(address.address)) return callback(Object.assign(new Error("5.1.1 No such user here"), { responseCode: 550 }));
        if (deferred.has(address.address))
          return callback(Object.assign(new Error("4.2.1 Mailbox busy, try later"), { responseCode: 451 }));
        callback();
      },
      onData(stream, _session, callback) {
        simpleParser(stream)
          .then((mail) => {
            received.push(mail);
            callback();
          })
          .catch((error: unknown) => callback(error instanceof Error ? error : new Error(String(error))));
      },
    });
  return {
    url: `smtp://mailer:${password}@127.0.0.1:${port}`,
    password,
    received,
    refused,
    deferred,
    async start() {
      server = build();
      const listening = server;
      await new Promise<void>((resolve) => listening.listen(port, "127.0.0.1", resolve));
    },
    async stop() {
      const running = server;
      server = null;
      if (running) await new Promise<void>((resolve) => running.close(() => resolve()));
    },
  };
}

/** A test context whose emails go to a started SMTP server on loopback (`EMAIL_FROM` a shop's sender). */
export async function startMailingContext(env: Record<string, string> = {}): Promise<{ ctx: TestContext; smtp: TestSmtpServer }> {
  const smtp = await testSmtpServer();
  await smtp.start();
  const ctx = await createTestContext({ env: { SMTP_URL: smtp.url, EMAIL_FROM: "Shop Mail <mail@shop.example>", ...env } });
  return { ctx, smtp };
}

/** Closes the mailer's pooled connections, the SMTP server and the context. */
export async function stopMailingContext({ ctx, smtp }: { ctx: TestContext; smtp: TestSmtpServer }): Promise<void> {
  ctx.services.mail?.close();
  await smtp.stop();
  await ctx.close();
}
