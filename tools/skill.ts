import { realpath } from "node:fs/promises";
import { join } from "node:path";
import { defineTool } from "../mcp/tool.ts";
import { READ_ONLY } from "./_lib/annotations.ts";
import { programLog } from "./_lib/hooks.ts";
import { Sandbox } from "./_lib/sandbox.ts";
import { SKILL_TOOL_INTRO, skillToolDescription } from "./_lib/skill_description.ts";
import { type BundledFiles, bundledFiles } from "./_lib/skill_files.ts";
import { discoverSkills, findSkill } from "./_lib/skills.ts";
import { sourcesFor } from "./_lib/skill_sources.ts";
import { count } from "./_lib/units.ts";

/** Enough for any real SKILL.md; the body shown is cut well before. */
const MAX_READ_BYTES = 1024 * 1024;
const MAX_BODY_CHARS = 100_000;

const INPUT = {
  type: "object",
  properties: {
    name: { type: "string", minLength: 1, description: "The skill to load." },
    arguments: {
      type: "string",
      maxLength: 10_000,
      description: "Replaces $ARGUMENTS in the skill's text (default: empty); when the skill " +
        "has no $ARGUMENTS, it is appended as `ARGUMENTS: …`.",
    },
  },
  required: ["name"],
  additionalProperties: false,
} as const;

export default defineTool({
  name: "skill",
  title: "Load a skill",
  description: SKILL_TOOL_INTRO,
  annotations: READ_ONLY,
  input: INPUT,
  output: {
    type: "object",
    properties: {
      name: { type: "string" },
      scope: { enum: ["project", "configured", "user"] },
      file: { type: "string", description: "the skill's SKILL.md, absolute" },
      directory: { type: "string", description: "the skill's directory, absolute" },
      insideRoots: { type: "boolean", description: "whether read_file can read its files" },
      files: {
        type: "array",
        items: { type: "string" },
        description: "the other files in its directory, relative to it",
      },
      moreFiles: { type: "integer", description: "files left out of `files`" },
      truncated: { type: "boolean", description: "whether the skill's text was cut" },
    },
    required: [
      "name",
      "scope",
      "file",
      "directory",
      "insideRoots",
      "files",
      "moreFiles",
      "truncated",
    ],
    additionalProperties: false,
  },

  // At start no call gives the roots: the working directory stands for the project.
  async prepare({ roots }) {
    const sources = sourcesFor(roots);
    const found = await discoverSkills(sources);
    for (const problem of found.problems) programLog("warning", "skill", problem);
    for (const { winner, hidden } of found.overrides) {
      programLog(
        "info",
        "skill",
        `the ${winner.scope} skill ${winner.name} (${winner.dir}) overrides the ${hidden.scope} one in ${hidden.dir}`,
      );
    }
    return {
      description: skillToolDescription(found, sources),
      input: offering(found.skills.map((s) => s.name)),
    };
  },

  async run(args, ctx) {
    // Read again: the roots of this call count, and the skill may have changed since start.
    const skill = await findSkill(args.name, sourcesFor(await ctx.roots()), MAX_READ_BYTES);
    const { text: body, continueAt } = cut(skill.body, skill.bodyLine);
    const given = args.arguments ?? "";
    const text = body.includes("$ARGUMENTS")
      ? body.split("$ARGUMENTS").join(given).trimEnd()
      : given
      ? `${body.trimEnd()}\n\nARGUMENTS: ${given}`
      : body.trimEnd();
    const sandbox = await Sandbox.of(ctx).catch(() => null);
    const real = await realpath(skill.dir);
    const insideRoots = sandbox?.contains(real) ?? false;
    const shown = sandbox && insideRoots ? (path: string) => sandbox.display(path) : undefined;
    const bundled = await bundledFiles(real, ctx.signal);
    const notes = [
      `Skill ${skill.name} (${skill.scope}) from ${skill.file}:`,
      "",
      text,
      ...(continueAt
        ? [
          "",
          `[the skill's text was cut at ${count(MAX_BODY_CHARS)} characters: read the rest ` +
          `with read_file from line ${continueAt} of ${skill.file} ($ARGUMENTS not replaced)]`,
        ]
        : []),
      "",
      ...filesSection(bundled, real, shown),
    ];
    return {
      content: notes.join("\n"),
      structured: {
        name: skill.name,
        scope: skill.scope,
        file: skill.file,
        directory: real,
        insideRoots,
        files: bundled.files,
        moreFiles: bundled.more,
        truncated: continueAt !== undefined,
      },
    };
  },
});

/**
 * The input schema with `name` an enum of the skills found; without any, a skill added since
 * start can still be loaded by name.
 */
function offering(names: string[]) {
  if (names.length === 0) return INPUT;
  return {
    ...INPUT,
    properties: { ...INPUT.properties, name: { ...INPUT.properties.name, enum: names } },
  };
}

/** Cuts a long body at a line end; says which line of SKILL.md the rest starts on. */
function cut(body: string, bodyLine: number): { text: string; continueAt?: number } {
  if (body.length <= MAX_BODY_CHARS) return { text: body };
  const end = body.lastIndexOf("\n", MAX_BODY_CHARS);
  const text = body.slice(0, end > 0 ? end : MAX_BODY_CHARS);
  return { text, continueAt: bodyLine + text.split("\n").length };
}

/**
 * The bundled files as paths the model can pass on: as read_file takes them when the skill lies
 * inside the roots (`shown`), else absolute, with what to use instead.
 */
function filesSection(
  bundled: BundledFiles,
  dir: string,
  shown: ((path: string) => string) | undefined,
): string[] {
  if (bundled.files.length === 0 && !bundled.incomplete) {
    return [`The skill bundles no other files (its directory: ${dir}).`];
  }
  const path = (rel: string) => join(dir, rel);
  const lines = [
    `Files bundled with the skill (in ${dir}):`,
    ...bundled.files.map((rel) => `- ${shown ? shown(path(rel)) : path(rel)}`),
  ];
  if (bundled.more) lines.push(`- …and ${count(bundled.more)} more`);
  if (bundled.incomplete) lines.push("[the listing stopped early: the directory is very large]");
  if (bundled.linksOut) {
    lines.push(`[${bundled.linksOut} symbolic link(s) leading out of the directory left out]`);
  }
  lines.push(
    shown
      ? "Read them with read_file when the skill's text calls for them."
      : "The skill's directory is outside the allowed roots, so read_file refuses these files; " +
        "read them with bash (e.g. cat) when the skill's text calls for them.",
  );
  return lines;
}
