/**
 * A skill's text as a call returns it: `$ARGUMENTS` replaced, then cut at a line end to fit the
 * result. The replacing stops where the cut falls, so a body full of `$ARGUMENTS` and a long
 * argument never build a huge string first.
 */
export const ARGUMENTS = "$ARGUMENTS";

interface SkillPage {
  text: string;
  /** The body's line (0-based) the text stopped at, when it does not show all of the body. */
  stoppedAt?: number;
  /** Whether the line at `stoppedAt` was shown in part. */
  partway: boolean;
}

/**
 * `body` with `$ARGUMENTS` replaced by `given`, in at most `maxChars` characters. `whole`: false
 * when the body was read only in part, so its last line may be cut and is left for later.
 */
export function fillArguments(
  body: string,
  given: string,
  maxChars: number,
  whole = true,
): SkillPage {
  const lines = body.split("\n");
  if (!whole) lines.pop();
  const shown: string[] = [];
  let length = 0;
  for (let i = 0; i < lines.length; i++) {
    const pieces = lines[i].split(ARGUMENTS);
    const newline = i > 0 ? 1 : 0;
    const size = newline + lines[i].length +
      (pieces.length - 1) * (given.length - ARGUMENTS.length);
    if (length + size <= maxChars) {
      shown.push(pieces.join(given));
      length += size;
      continue;
    }
    // A line end is the better place to stop, unless that would leave much of the room unused.
    const room = maxChars - length - newline;
    if (length >= maxChars / 2 || room <= 0) return page(shown, i, false);
    shown.push(joinedPrefix(pieces, given, room));
    return page(shown, i, true);
  }
  return whole ? { text: shown.join("\n").trimEnd(), partway: false } : page(shown, lines.length);
}

function page(shown: string[], stoppedAt: number, partway = false): SkillPage {
  return { text: shown.join("\n").trimEnd(), stoppedAt, partway };
}

/** The first `room` characters of `pieces` joined by `given`, building no more than that. */
function joinedPrefix(pieces: string[], given: string, room: number): string {
  let text = "";
  for (let k = 0; k < pieces.length && text.length < room; k++) {
    text += k > 0 ? given + pieces[k] : pieces[k];
  }
  // Never end between the two halves of a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(text[room - 1] ?? "") ? room - 1 : room;
  return text.slice(0, end);
}
