/** What checking a token can come to besides a grant. */

/** The authorization server (its metadata, keys or introspection) cannot be reached or used. */
export class Unavailable extends Error {}

/**
 * The authorization server answers, but not as configured (its metadata names another issuer):
 * waiting will not help; the operator must correct http.auth.
 */
export class Misconfigured extends Unavailable {}

/**
 * One client asked about too many new tokens lately (made-up ones, most likely): it waits, and
 * everyone else goes on being answered.
 */
export class TooManyTokens extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super("this client sent too many new access tokens to check lately");
  }
}
