/**
 * The skills extension (SEP-2640, `io.modelcontextprotocol/skills`): the skills the skill tool
 * finds, for clients that speak it. skills/list pages through every skill's entry (its front
 * matter as written, a manifest of its files with SHA-256 digests and sizes), skills/get gives
 * one by its SKILL.md's URI, resources/directory/read lists a skill directory's children, and
 * the files themselves are resources under skill://<name>/<path>, read with resources/read and
 * watched like the skill resources. A skill or file resolving outside its directory is not
 * served (skill_tree.ts), nor a project's skill leading out of the project (skills.ts).
 */
import { Buffer } from "node:buffer";
import {
  defineExtension,
  defineResourceTemplate,
  type ExtensionContext,
  ResourceNotFound,
} from "../../mcp/features/mod.ts";
import { INVALID_PARAMS, pageOf, type Params, RpcError } from "../../mcp/wire/mod.ts";
import { quoted } from "../../config/quote.ts";
import {
  childrenOf,
  entryOf,
  mimeTypeOf,
  NotServed,
  parseSkillUri,
  servedSkill,
  SKILL_FILE_TEMPLATE,
  type SkillEntry,
  skillFileUri,
} from "./_lib/skill_entries.ts";
import { discoverSkills } from "./_lib/skills.ts";
import { sourcesFor } from "./_lib/skill_sources.ts";
import { readTreeFile } from "./_lib/skill_tree.ts";
import { watchSkills } from "./_lib/skill_watch.ts";

export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";

/** What every result of the extension carries: the type, and how long it may be cached. */
function cacheable(ctx: ExtensionContext, result: Record<string, unknown>) {
  // The user's own files: a shared cache must not hand them to someone else.
  return { resultType: "complete", ...result, ttlMs: ctx.cacheTtlMs, cacheScope: "private" };
}

function uriParam(params: Params, method: string): string {
  if (typeof params.uri !== "string") {
    throw new RpcError(INVALID_PARAMS, `Invalid params: ${method} needs params.uri (a string)`);
  }
  return params.uri;
}

/** A skill that is not served, as the extension answers it: -32602 with the reason. */
function notServed(uri: string, error: unknown): never {
  if (!(error instanceof NotServed)) throw error;
  throw new RpcError(INVALID_PARAMS, `No skill is served at ${quoted(uri)}: ${error.message}`);
}

async function listSkills(params: Params, ctx: ExtensionContext) {
  const { skills } = await discoverSkills(sourcesFor(await ctx.roots(), ctx.config));
  const page = pageOf(skills, params.cursor, ctx.pageSize, "skills");
  const entries: SkillEntry[] = [];
  for (const { name } of page.items) {
    // A cancelled listing stops between skills: each may mean hashing megabytes.
    ctx.signal.throwIfAborted();
    try {
      const { skill, tree } = await servedSkill(name, ctx);
      entries.push(await entryOf(skill, tree));
    } catch (error) {
      if (!(error instanceof NotServed)) throw error;
      ctx.log("warning", `skills/list leaves out ${name}: ${error.message}`);
    }
  }
  return cacheable(ctx, {
    skills: entries,
    ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
  });
}

async function getSkill(params: Params, ctx: ExtensionContext) {
  const uri = uriParam(params, "skills/get");
  const at = parseSkillUri(uri);
  if (!at || at.rel !== "SKILL.md") {
    throw new RpcError(
      INVALID_PARAMS,
      `No skill is served at ${quoted(uri)}: a skill is named by its SKILL.md, ` +
        "skill://<name>/SKILL.md",
    );
  }
  try {
    const { skill, tree } = await servedSkill(at.name, ctx);
    return cacheable(ctx, { skill: await entryOf(skill, tree) });
  } catch (error) {
    notServed(uri, error);
  }
}

async function readDirectory(params: Params, ctx: ExtensionContext) {
  const uri = uriParam(params, "resources/directory/read");
  const at = parseSkillUri(uri);
  if (!at) {
    throw new RpcError(
      INVALID_PARAMS,
      `${quoted(uri)} is not a directory resource: skill directories are skill://<name>[/<path>]`,
    );
  }
  let served;
  try {
    served = await servedSkill(at.name, ctx);
  } catch (error) {
    notServed(uri, error);
  }
  if (!served.tree.dirs.has(at.rel)) {
    const file = served.tree.files.some((f) => f.rel === at.rel);
    throw new RpcError(
      INVALID_PARAMS,
      file
        ? `${quoted(uri)} is not a directory resource (it is a file: read it with resources/read)`
        : `${quoted(uri)} is not a directory of the skill ${at.name}`,
    );
  }
  const children = childrenOf(at.name, served.tree, at.rel);
  const page = pageOf(children, params.cursor, ctx.pageSize, "directory");
  // The extension's result carries the cache terms as skills/list's does (the official
  // client refuses one without them).
  return cacheable(ctx, {
    resources: page.items,
    ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
  });
}

const extension = defineExtension({
  id: SKILLS_EXTENSION,
  settings: { directoryRead: true },
  requires: "skill",
  methods: {
    "skills/list": listSkills,
    "skills/get": getSkill,
    "resources/directory/read": readDirectory,
  },
});

/** Bytes that are UTF-8 are served as text, the rest as base64: either way, the listed bytes. */
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

const skillFiles = defineResourceTemplate({
  uriTemplate: SKILL_FILE_TEMPLATE,
  name: "skill-file",
  title: "Skill file",
  description: "A file of a skill (skills extension): skill://<name>/SKILL.md, or a file it " +
    "bundles by its path in the skill's directory.",
  requires: "skill",
  async read({ name, path }, ctx) {
    const uri = skillFileUri(name, path);
    const at = parseSkillUri(uri);
    let served;
    try {
      if (!at || at.rel === "") throw new NotServed("it names no file");
      served = await servedSkill(name, ctx);
    } catch (error) {
      if (error instanceof NotServed) throw new ResourceNotFound(error.message);
      throw error;
    }
    const file = served.tree.files.find((f) => f.rel === at!.rel);
    if (!file) {
      throw new ResourceNotFound(
        `the skill ${name} serves no file ${quoted(path)}; hidden files and links out of ` +
          "its directory are not served",
      );
    }
    const bytes = await readTreeFile(file);
    const mimeType = mimeTypeOf(file.rel);
    try {
      return { text: utf8.decode(bytes), mimeType: mimeType ?? "text/plain" };
    } catch {
      return {
        blob: Buffer.from(bytes).toString("base64"),
        mimeType: mimeType ?? "application/octet-stream",
      };
    }
  },
  list: async (ctx) => {
    const { skills } = await discoverSkills(sourcesFor(await ctx.roots(), ctx.config));
    return skills.map((skill) => ({
      uri: skillFileUri(skill.name),
      name: skill.name,
      description: skill.description,
      mimeType: "text/markdown",
    }));
  },
  // A SKILL.md written, a skill coming or going: told as the skill resources tell it.
  watch: (_variables, ctx, changed) => watchSkills(ctx, changed),
  watchList: watchSkills,
});

export default [extension, skillFiles];
