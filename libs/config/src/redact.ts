/**
 * The one rule for showing a URL in a message: its password never appears. REDIS_URL (and any other
 * URL of the configuration) may carry one (`redis://user:password@host`); every message that may
 * contain a URL goes through redactSecrets, so a log line or a CLI error cannot leak it.
 */

/** scheme://userinfo@ — userinfo without '/', '@' or whitespace (RFC 3986 allows none of those there). */
const CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/@]*)@/gi;

/** The text with the password of every URL in it replaced by ***: `redis://user:***@host`, `redis://:***@host`. */
export function redactSecrets(text: string): string {
  return text.replace(CREDENTIALS, (_match, scheme: string, userinfo: string) => {
    const colon = userinfo.indexOf(':');
    // Without a colon, what a client takes for a user name some take for a password: hide it all.
    return colon < 0 ? `${scheme}***@` : `${scheme}${userinfo.slice(0, colon)}:***@`;
  });
}
