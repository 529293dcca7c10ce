/**
 * Thrown by a command body when its options are wrong in a way the argument parser cannot see
 * (e.g. "exactly one of --file and --from-topic"). The CLI prints the message and the command's
 * usage on stderr and exits 2, like an unknown option.
 */
export class UsageError extends Error {}
