import { defineTool, type ToolContext, ToolError } from "../../mcp/tool/mod.ts";
import { transaction } from "../_lib/transaction/mod.ts";
import {
  explainMissing,
  fitReplacement,
  lineOf,
  looseMatches,
  occurrences,
  replaceAt,
  showPlaces,
} from "./_lib/edit_match.ts";
import { FORCE_PROPERTY, pathProperty } from "../_lib/declarations/path_properties.ts";
import {
  aroundRegion,
  type Region,
  shiftHunks,
  splicedBytes,
  unchanged,
  widened,
} from "./_lib/changed_region.ts";
import { CHANGES_FILES } from "../_lib/declarations/annotations.ts";

const MAX_DIFF_CHARS = 20_000;
const CONTEXT_LINES = 3;

export default defineTool({
  name: "edit_file",
  title: "Edit a file",
  description: (offers) =>
    "Changes a text file by exact string replacement: each edit's `old_string` must appear " +
    "exactly once (or set `replace_all`); `new_string` is inserted literally. Edits apply in " +
    "order, all or none. Line endings, BOM and encoding are kept. The result shows a unified " +
    "diff; `dry_run` only shows it. An old_string found only with whitespace ignored " +
    "(indentation, spaces, line endings), in exactly one place, is applied there in the file's " +
    "own indentation, and the result says so; a miss shows the closest lines." +
    (offers("write_file") ? " To create or replace a whole file, use write_file." : ""),
  annotations: CHANGES_FILES,
  // A dry run writes nothing.
  writes: {
    paths: [{ arg: "path", kind: "replaces", when: (args) => args.dry_run !== true }],
    force: "force",
  },
  input: {
    type: "object",
    properties: {
      path: pathProperty("The file to edit"),
      edits: {
        type: "array",
        minItems: 1,
        maxItems: 100,
        items: {
          type: "object",
          properties: {
            old_string: { type: "string", minLength: 1, description: "The exact text to replace." },
            new_string: { type: "string", description: "The text to put there." },
            replace_all: {
              type: "boolean",
              description: "Replace every occurrence instead of requiring exactly one.",
            },
          },
          required: ["old_string", "new_string"],
          additionalProperties: false,
        },
      },
      dry_run: { type: "boolean", description: "Show the diff without writing." },
      force: FORCE_PROPERTY,
    },
    required: ["path", "edits"],
    additionalProperties: false,
  },
  output: {
    type: "object",
    properties: {
      path: { type: "string" },
      replacements: { type: "integer", description: "occurrences replaced, all edits together" },
      ignoredWhitespace: {
        type: "array",
        items: { type: "integer" },
        description: "edits (1-based) that matched only with whitespace ignored",
      },
      written: { type: "boolean" },
    },
    required: ["path", "replacements", "written"],
    additionalProperties: false,
  },

  run: editFile,
});

/** What the model asked edit_file for. */
interface EditArgs {
  path: string;
  edits: { old_string: string; new_string: string; replace_all?: boolean }[];
  dry_run?: boolean;
  force?: boolean;
}

/**
 * Finds each edit's old_string in the file's text (exactly, or once with whitespace ignored),
 * applies them in order, and writes the result through the edit transaction; a dry run shows the
 * diff only.
 */
function editFile(args: EditArgs, ctx: ToolContext) {
  return transaction(ctx, async (tx) => {
    const file = await tx.readText(await tx.target(args.path), {
      tool: "edit_file",
      create: "create it with write_file",
      instead: "use bash (sed, a script) instead",
    });
    const { shown } = file;
    // A file whose every line break is CRLF is edited as LF and written back as CRLF, so edits
    // may use either.
    const normalize = (s: string) => (file.crlf ? s.replaceAll("\r\n", "\n") : s);
    const before = file.text;
    let after = before;
    let region = unchanged(before.length);
    let replacements = 0;
    const ignoredWhitespace: number[] = [];
    const loose: string[] = [];
    for (const [index, edit] of args.edits.entries()) {
      const old = normalize(edit.old_string);
      const replacement = normalize(edit.new_string);
      const which = args.edits.length > 1
        ? `edit ${index + 1} of ${args.edits.length}`
        : "the edit";
      const failed = (why: string) =>
        new ToolError(`${which} failed, so no edit was applied to ${shown}: ${why}`);
      if (old === replacement) throw failed("old_string and new_string are the same");
      const found = occurrences(after, old);
      if (found.length === 0) {
        const places = looseMatches(after, old);
        if (places.length > 1) {
          throw failed(
            `old_string was not found exactly; with whitespace ignored it matches ${places.length} places (100% similar), at lines ${
              places.slice(0, 10).map((p) => lineOf(after, p.start)).join(", ")
            }. Copy one exactly, with a line around it to make it unique:\n${
              showPlaces(after, places)
            }`,
          );
        }
        if (places.length === 0) {
          throw failed(`old_string was not found. ${explainMissing(after, old)}`);
        }
        const [place] = places;
        const first = lineOf(after, place.start);
        const last = lineOf(after, Math.max(place.start, place.end - 1));
        loose.push(
          `${args.edits.length > 1 ? `edit ${index + 1}` : "old_string"} matched lines ${first}${
            last > first ? `-${last}` : ""
          } only with whitespace ignored; applied there in the file's own indentation and line endings`,
        );
        ignoredWhitespace.push(index + 1);
        region = widened(region, after, place.start, place.end);
        after = after.slice(0, place.start) + fitReplacement(after, place, old, replacement) +
          after.slice(place.end);
        replacements++;
        continue;
      }
      if (found.length > 1 && !edit.replace_all) {
        const lines = found.slice(0, 10).map((at) => lineOf(after, at));
        throw failed(
          `old_string appears ${found.length} times (at lines ${lines.join(", ")}${
            found.length > 10 ? ", ..." : ""
          }). Add surrounding lines to make it unique, or set replace_all.`,
        );
      }
      region = widened(region, after, found[0], found[found.length - 1] + old.length);
      after = replaceAt(after, found, old.length, replacement);
      replacements += found.length;
    }
    const diff = await unifiedDiff(shown, before, after, region);
    let note = "";
    if (!args.dry_run) {
      // The file's own bytes around the change, and the change encoded as the file is.
      const { decoded } = file;
      const bomBytes = decoded.bom ? (decoded.encoding === "utf-8" ? 3 : 2) : 0;
      const pieces = splicedBytes(
        {
          bytes: file.bytes,
          text: decoded.text,
          encoding: decoded.encoding,
          bomBytes,
          crlf: file.crlf,
        },
        before,
        after,
        region,
      );
      note = (await tx.replace(file, pieces)).note;
    }
    const verb = args.dry_run ? "Would edit" : "Edited";
    return {
      content: `${verb} ${shown}: ${replacements} replacement${replacements === 1 ? "" : "s"}` +
        `${args.dry_run ? " (dry run: nothing written)" : ""}${note}${
          loose.map((line) => `\nNote: ${line}.`).join("")
        }\n\n${diff}`,
      structured: {
        path: shown,
        replacements,
        written: !args.dry_run,
        ...(ignoredWhitespace.length ? { ignoredWhitespace } : {}),
      },
    };
  });
}

/**
 * A unified diff of the change, bounded in time and size: computed on the lines around the
 * changed region only, its hunks then numbered as in the whole file.
 */
async function unifiedDiff(
  name: string,
  before: string,
  after: string,
  region: Region,
): Promise<string> {
  // Loaded on first use: start-up pays nothing for it.
  const { createTwoFilesPatch } = await import("diff");
  // One line more than the context on each side, so the cut never shortens a hunk's context.
  const around = aroundRegion(before, after, region, CONTEXT_LINES + 1);
  const patch = createTwoFilesPatch(
    `a/${name}`,
    `b/${name}`,
    around.before,
    around.after,
    undefined,
    undefined,
    { context: CONTEXT_LINES, timeout: 2000 },
  );
  if (patch === undefined) {
    return "(the diff took too long to compute; read the file to check the result)";
  }
  // Without the "=====" rule.
  const body = shiftHunks(patch.slice(patch.indexOf("\n") + 1), around.linesBefore);
  return body.length > MAX_DIFF_CHARS
    ? `${
      body.slice(0, MAX_DIFF_CHARS)
    }\n[... diff cut at ${MAX_DIFF_CHARS} characters; read the file to see the rest]`
    : body;
}
