/** A variable of the environment is missing or wrong: the message names it, and the process does not start. */
export class ConfigError extends Error {}
