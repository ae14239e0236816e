/**
 * A time as a person or a model writes it for history's `since` and `until`: an ISO time or date,
 * "now", "today", "yesterday", or a span back from now ("2h", "30 minutes ago", "3 days"). A time
 * without a zone and a bare date are the server's local time; a day word names its midnight.
 */

const UNIT_MS: Record<string, number> = {
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** The unit words, by their first letter's unit ("min" and "minute" are m, "mo" is refused). */
const UNIT = /^(s|sec|secs|seconds?|m|min|mins|minutes?|h|hr|hrs|hours?|d|days?|w|wk|wks|weeks?)$/;

/** What a person may write, for the sentence that refuses anything else. */
export const WHEN_FORMS = 'an ISO time ("2025-06-01T14:00", local unless it ends in Z or an ' +
  'offset), a date ("2025-06-01"), "today", "yesterday", or a span back from now ("2h", ' +
  '"30 minutes ago", "3 days")';

/**
 * The moment `text` names, as an ISO string, or undefined when it names none.
 *
 * @example
 * ```ts
 * parseWhen("2h", new Date("2025-06-01T12:00:00Z")); // "2025-06-01T10:00:00.000Z"
 * parseWhen("yesterday", now); // yesterday's local midnight
 * parseWhen("soon", now); // undefined
 * ```
 */
export function parseWhen(text: string, now: Date): string | undefined {
  const words = text.trim().toLowerCase();
  if (words === "now") return now.toISOString();
  if (words === "today" || words === "yesterday") {
    const day = new Date(now.getFullYear(), now.getMonth(), now.getDate());
    if (words === "yesterday") day.setDate(day.getDate() - 1);
    return day.toISOString();
  }
  const span = /^(\d+(?:\.\d+)?)\s*([a-z]+)(?:\s+ago)?$/.exec(words);
  if (span && UNIT.test(span[2])) {
    const ms = Number(span[1]) * UNIT_MS[span[2][0]];
    return Number.isFinite(ms) ? new Date(now.getTime() - ms).toISOString() : undefined;
  }
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(words);
  if (date) {
    const [year, month, day] = date.slice(1).map(Number);
    const local = new Date(year, month - 1, day);
    return local.getMonth() === month - 1 && local.getDate() === day
      ? local.toISOString()
      : undefined;
  }
  // A date and a time, "T" or a space between; Date reads one without a zone as local time.
  if (/^\d{4}-\d{2}-\d{2}[t ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(z|[+-]\d{2}:?\d{2})?$/.test(words)) {
    const time = new Date(words.replace(" ", "T").toUpperCase());
    return Number.isNaN(time.getTime()) ? undefined : time.toISOString();
  }
  return undefined;
}
