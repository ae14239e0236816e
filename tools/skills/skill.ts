import { realpath } from "node:fs/promises";
import { join } from "node:path";
import { defineTool, type ToolContext } from "../../mcp/tool/mod.ts";
import { READ_ONLY } from "../_lib/declarations/annotations.ts";
import { Sandbox } from "../_lib/sandbox/mod.ts";
import { SKILL_TOOL_INTRO, skillToolDescription } from "./_lib/skill_description.ts";
import { type BundledFiles, bundledFiles } from "./_lib/skill_files.ts";
import { discoverSkills, type LoadedSkill, skillForCall } from "./_lib/skills.ts";
import { sourcesFor } from "./_lib/skill_sources.ts";
import { ARGUMENTS, fillArguments } from "./_lib/skill_text.ts";
import { count } from "../_lib/text/units.ts";

/** The whole text result, like every tool's output. */
const MAX_RESULT_CHARS = 30_000;
/** Of which the list of bundled files may take this much. */
const MAX_FILES_CHARS = 5_000;

const INPUT = {
  type: "object",
  properties: {
    name: { type: "string", minLength: 1 },
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
      file: { type: "string" },
      directory: { type: "string" },
      insideRoots: { type: "boolean", description: "whether read_file can read its files" },
      files: {
        type: "array",
        items: { type: "string" },
        description: "its directory's other files",
      },
      moreFiles: { type: "integer" },
      truncated: { type: "boolean" },
      continueAtLine: { type: "integer", description: "the line of SKILL.md to read on from" },
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
  async prepare({ roots, config, serverLog }) {
    const sources = sourcesFor(roots, config);
    const found = await discoverSkills(sources);
    for (const problem of found.problems) serverLog("warning", "skill", problem);
    for (const { winner, hidden } of found.overrides) {
      serverLog(
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

  run: runSkill,
});

/** What the model asked skill for. */
interface SkillArgs {
  name: string;
  arguments?: string;
}

/** Returns the skill's instructions, the arguments placed in them, and names its bundled files. */
async function runSkill(args: SkillArgs, ctx: ToolContext) {
  const skill = await skillForCall(args.name, ctx);
  const given = args.arguments ?? "";
  const placed = skill.body.includes(ARGUMENTS);
  const sandbox = await Sandbox.of(ctx).catch(() => null);
  const real = await realpath(skill.dir);
  const insideRoots = sandbox?.contains(real) ?? false;
  const shown = sandbox && insideRoots ? (path: string) => sandbox.display(path) : undefined;
  const bundled = await bundledFiles(real, ctx.signal);
  const files = filesSection(bundled, real, shown);
  const compose = (text: string, cut?: string) =>
    [
      `Skill ${skill.name} (${skill.scope}) from ${skill.file}:`,
      "",
      text,
      ...(cut ? ["", cut] : []),
      ...(!placed && given ? ["", `ARGUMENTS: ${given}`] : []),
      "",
      ...files,
    ].join("\n");
  const readOn = restOfSkill(skill, shown, placed);
  // Room for the note at its longest: the last line's number, cut partway.
  const lastLine = skill.bodyLine + skill.body.split("\n").length;
  const room = MAX_RESULT_CHARS - compose("", readOn(lastLine, true)).length;
  const page = fillArguments(skill.body, given, room, skill.whole);
  const continueAt = page.stoppedAt === undefined ? undefined : skill.bodyLine + page.stoppedAt;
  const structured = {
    name: skill.name,
    scope: skill.scope,
    file: skill.file,
    directory: real,
    insideRoots,
    files: bundled.files,
    moreFiles: bundled.more,
    truncated: continueAt !== undefined,
    ...(continueAt === undefined ? {} : { continueAtLine: continueAt }),
  };
  return {
    content: compose(
      page.text,
      continueAt === undefined ? undefined : readOn(continueAt, page.partway),
    ),
    structured,
  };
}

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

/**
 * The note on a cut skill: where its text goes on, and how to read it there (`shown` gives the
 * path read_file takes when the skill lies inside the roots).
 */
function restOfSkill(
  skill: LoadedSkill,
  shown: ((path: string) => string) | undefined,
  placed: boolean,
): (line: number, partway: boolean) => string {
  return (line, partway) => {
    const where = partway
      ? `partway through line ${line} of SKILL.md`
      : `before line ${line} of SKILL.md`;
    const how = shown
      ? `read on with read_file (path ${JSON.stringify(shown(skill.file))}, offset ${line})`
      : `read on with bash, e.g. tail -n +${line} ${shellQuoted(skill.file)} (read_file ` +
        "cannot open it: it lies outside the allowed roots)";
    const raw = placed ? `; ${ARGUMENTS} is not replaced there` : "";
    return `[the skill's text was cut ${where} to keep this result under ` +
      `${count(MAX_RESULT_CHARS)} characters: ${how}${raw}]`;
  };
}

function shellQuoted(path: string): string {
  return `'${path.replaceAll("'", `'\\''`)}'`;
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
  const lines = [`Files bundled with the skill (in ${dir}):`];
  let chars = 0;
  for (const rel of bundled.files) {
    const line = `- ${shown ? shown(path(rel)) : path(rel)}`;
    if (chars + line.length > MAX_FILES_CHARS) break;
    lines.push(line);
    chars += line.length + 1;
  }
  const more = bundled.more + bundled.files.length - (lines.length - 1);
  if (more) lines.push(`- …and ${count(more)} more`);
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
