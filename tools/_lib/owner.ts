/**
 * Whose a record is, when the server knows (OAuth): the tag a subject's journal lines and task
 * list carry, so what one subject did is kept from another. A digest of the subject, so its name
 * (an email, a client id) is written nowhere; undefined without OAuth, where every session is the
 * machine's user's.
 *
 * @example
 * ```ts
 * const owner = ownerTag(ctx.session.subject); // "3f1c…" (32 hex digits) or undefined
 * ```
 */
import { createHash } from "node:crypto";

/** Hex digits of the digest kept: 128 bits, far past any chance of two subjects sharing one. */
const TAG_DIGITS = 32;

export function ownerTag(subject: string | undefined): string | undefined {
  if (subject === undefined) return undefined;
  return createHash("sha256").update(subject).digest("hex").slice(0, TAG_DIGITS);
}

/** Whether a tag is one ownerTag() makes (what a record read back may hold). */
export function isOwnerTag(value: unknown): value is string {
  return typeof value === "string" && /^[0-9a-f]{32}$/.test(value);
}
