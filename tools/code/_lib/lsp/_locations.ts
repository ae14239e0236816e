/**
 * What servers answer with, made token-cheap: Location, LocationLink and call hierarchy items
 * become `path:line` (relative to the first root inside the roots; outside them the absolute path
 * and line only, never their text), references grouped per file with counts.
 */
import type { Sandbox } from "../../../_lib/sandbox/mod.ts";
import { pathOf } from "./_uris.ts";

interface Range {
  start: { line: number; character: number };
}

/** One place as shown: `path` as the sandbox displays it, 1-based line and column. */
export interface Place {
  path: string;
  line: number;
  column: number;
  inside: boolean;
  name?: string;
}

/** Location | Location[] | LocationLink[] | null, as places. */
export function placesOf(answer: unknown, sandbox: Sandbox): Place[] {
  const list = Array.isArray(answer) ? answer : answer ? [answer] : [];
  const places: Place[] = [];
  for (const item of list as Record<string, unknown>[]) {
    const uri = (item.targetUri ?? item.uri) as string | undefined;
    const range = (item.targetSelectionRange ?? item.range) as Range | undefined;
    if (typeof uri !== "string" || !range) continue;
    const place = placeOf(uri, range, sandbox);
    if (place) places.push(place);
  }
  return places;
}

export function placeOf(uri: string, range: Range, sandbox: Sandbox, name?: string) {
  const path = pathOf(uri);
  const shownPath = path === undefined ? uri.slice(0, 300) : path;
  const inside = path !== undefined && sandbox.contains(path);
  return {
    path: inside ? sandbox.display(path!) : shownPath,
    line: range.start.line + 1,
    column: range.start.character + 1,
    inside,
    ...(name === undefined ? {} : { name: name.slice(0, 200) }),
  };
}

/** `path:line:column name`, one a line. */
export function placeLines(places: Place[]): string[] {
  return places.map((p) =>
    `${p.path}:${p.line}:${p.column}${p.name ? ` ${p.name}` : ""}${
      p.inside ? "" : " (outside the roots)"
    }`
  );
}

/** `path (count): line, line, …`, files with the most references first. */
export function groupedLines(places: Place[]): string[] {
  const byFile = new Map<string, Place[]>();
  for (const place of places) {
    const list = byFile.get(place.path) ?? [];
    list.push(place);
    byFile.set(place.path, list);
  }
  return [...byFile].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]))
    .map(([path, list]) =>
      `${path} (${list.length}): ${
        list.sort((a, b) => a.line - b.line || a.column - b.column).map((p) =>
          `${p.line}:${p.column}`
        )
          .join(", ")
      }${list[0].inside ? "" : " (outside the roots)"}`
    );
}

/** Hover contents (MarkupContent, MarkedString or a list of them) as plain text. */
export function hoverText(contents: unknown): string {
  if (!contents) return "";
  if (typeof contents === "string") return contents;
  if (Array.isArray(contents)) return contents.map(hoverText).filter(Boolean).join("\n\n");
  const value = (contents as { value?: unknown }).value;
  return typeof value === "string" ? value : "";
}
