/**
 * Matching a symbol's name path (`Class/method`) against what a caller asks for: "method",
 * "Class/method" (the last segments), "/Class/method" (from the file's top), or with
 * `substring` a part of the last segment, in any case.
 */
export interface NamePattern {
  segments: string[];
  anchored: boolean;
  substring: boolean;
}

export function namePattern(text: string, substring: boolean): NamePattern {
  const anchored = text.startsWith("/");
  const segments = text.split("/").filter((segment) => segment !== "");
  return {
    segments: substring ? [...segments.slice(0, -1), segments.at(-1)!.toLowerCase()] : segments,
    anchored,
    substring,
  };
}

export function matchesName(namePath: string, pattern: NamePattern): boolean {
  const parts = namePath.split("/");
  const wanted = pattern.segments;
  if (wanted.length > parts.length) return false;
  if (pattern.anchored && wanted.length !== parts.length) return false;
  const offset = parts.length - wanted.length;
  for (let i = 0; i < wanted.length; i++) {
    const part = parts[offset + i];
    const last = i === wanted.length - 1;
    if (last && pattern.substring) {
      if (!part.toLowerCase().includes(wanted[i])) return false;
    } else if (part !== wanted[i]) return false;
  }
  return true;
}
