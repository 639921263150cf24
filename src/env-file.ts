import { existsSync } from "node:fs";

/**
 * Reads `.env` from the working directory when there is one (`cp .env.example .env`, edit, `npm
 * start`). Variables already set in the environment win over the file, as with Node's `--env-file`,
 * so a deployment's own settings are never overridden by a file left beside the code.
 */
export function loadEnvFile(file = ".env"): void {
  if (existsSync(file)) process.loadEnvFile(file);
}
