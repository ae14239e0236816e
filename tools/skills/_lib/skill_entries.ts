/**
 * The skills extension's view of a skill (SEP-2640): its `skill://` URIs, its entry (the front
 * matter as written and a manifest of every file with its digest and size), and the direct
 * children of one of its directories. Built from skill_tree.ts, so every URI given here is one
 * resources/read serves.
 */
import { type ReadContext, type ResourceInfo, UriTemplate } from "../../../mcp/features/mod.ts";
import { ToolError } from "../../../mcp/tool/mod.ts";
import { type LoadedSkill, skillForCall } from "./skills.ts";
import { digestOf, type SkillTree, skillTree } from "./skill_tree.ts";

export const SKILL_FILE_TEMPLATE = "skill://{name}/{+path}";
const fileUris = new UriTemplate(SKILL_FILE_TEMPLATE);
const rootUris = new UriTemplate("skill://{name}");

export const DIRECTORY_MIME = "inode/directory";

export interface SkillEntry {
  uri: string;
  frontmatter: Record<string, unknown>;
  resources: { uri: string; digest: string; size: number }[];
}

/** Why a skill or file is not served: its message goes to the client as it is. */
export class NotServed extends Error {}

export function skillFileUri(name: string, rel = "SKILL.md"): string {
  return fileUris.expand({ name, path: rel });
}

/**
 * The skill and path a `skill://` URI names ("" for the skill's own directory), or null when it
 * names none: a path with empty, `.` or `..` segments never names a file of a skill.
 */
export function parseSkillUri(uri: string): { name: string; rel: string } | null {
  const root = rootUris.match(uri);
  const found = root ? { name: root.name, rel: "" } : fileUris.match(uri);
  if (!found) return null;
  const rel = "rel" in found ? found.rel : found.path;
  if (rel !== "" && rel.split("/").some((part) => part === "" || part === "." || part === "..")) {
    return null;
  }
  return { name: found.name, rel };
}

/** The skill of this name in the request's roots, with its files; NotServed says why not. */
export async function servedSkill(
  name: string,
  ctx: Pick<ReadContext, "roots" | "config">,
): Promise<{ skill: LoadedSkill; tree: SkillTree }> {
  const skill = await skillForCall(name, ctx).catch((error) => {
    throw error instanceof ToolError ? new NotServed(error.message) : error;
  });
  const tree = await skillTree(skill.dir).catch((error) => {
    throw new NotServed(`the skill ${name} is not served: ${(error as Error).message}`);
  });
  if (!tree.files.some((file) => file.rel === "SKILL.md")) {
    throw new NotServed(`the skill ${name} is not served: its SKILL.md leads out of its directory`);
  }
  return { skill, tree };
}

export async function entryOf(skill: LoadedSkill, tree: SkillTree): Promise<SkillEntry> {
  const resources: SkillEntry["resources"] = [];
  for (const file of tree.files) {
    const { digest, size } = await digestOf(file);
    resources.push({ uri: skillFileUri(skill.name, file.rel), digest, size });
  }
  return { uri: skillFileUri(skill.name), frontmatter: skill.frontMatter, resources };
}

/** The files and directories directly in the skill's directory `rel`, by name. */
export function childrenOf(name: string, tree: SkillTree, rel: string): ResourceInfo[] {
  const prefix = rel === "" ? "" : `${rel}/`;
  const direct = (path: string) =>
    path.startsWith(prefix) && !path.slice(prefix.length).includes("/");
  const children: ResourceInfo[] = [];
  for (const dir of tree.dirs) {
    if (dir === "" || !direct(dir)) continue;
    children.push({
      uri: skillFileUri(name, dir),
      name: dir.slice(prefix.length),
      mimeType: DIRECTORY_MIME,
    });
  }
  for (const file of tree.files) {
    if (!direct(file.rel)) continue;
    children.push({
      uri: skillFileUri(name, file.rel),
      name: file.rel.slice(prefix.length),
      mimeType: mimeTypeOf(file.rel),
      size: file.size,
    });
  }
  return children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

const MIME_TYPES: Record<string, string> = {
  md: "text/markdown",
  txt: "text/plain",
  json: "application/json",
  yaml: "application/yaml",
  yml: "application/yaml",
  py: "text/x-python",
  sh: "text/x-shellscript",
  js: "text/javascript",
  ts: "text/typescript",
  html: "text/html",
  csv: "text/csv",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  svg: "image/svg+xml",
  pdf: "application/pdf",
};

/** By extension; what is unknown is served as text or bytes as its content turns out. */
export function mimeTypeOf(rel: string): string | undefined {
  const dot = rel.lastIndexOf(".");
  return dot > rel.lastIndexOf("/") ? MIME_TYPES[rel.slice(dot + 1).toLowerCase()] : undefined;
}
