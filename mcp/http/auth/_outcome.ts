/** What checking a token can come to besides a grant. */

/** The authorization server (its metadata, keys or introspection) cannot be reached or used. */
export class Unavailable extends Error {}
