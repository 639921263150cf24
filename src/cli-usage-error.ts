/** A command line the CLI refuses: its message is printed as is, without a stack. */
export class UsageError extends Error {}
