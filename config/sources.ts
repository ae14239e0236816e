/**
 * The sources of configuration, each read into a layer of settings that remember where they came
 * from: a config file (JSONC, checked against the schema, complaints at line:column), the
 * environment (TOOLHOST_*), and the flags main.ts parsed. Problems are collected, not thrown, so
 * that one run reports every mistake in every source.
 */
import { readFileSync, statSync } from "node:fs";
import { duplicateKeys, lineColumn, nodeAt, parseJsonc, type TextProblem } from "./jsonc.ts";
import { type ConfigFlags, CUSTOM_TOOLS, type Leaf, LEAVES } from "./keys.ts";
import { pathsFor, resolvePath, resolveProgram } from "./paths.ts";
import { checkConfig } from "./validate.ts";

export interface Entry {
  value: unknown;
  /** Where the value came from, as --print-config shows it: "project file /p/.toolhost.jsonc:7". */
  origin: string;
  /** Where a complaint about it points: "/p/.toolhost.jsonc:7:3", "env TOOLHOST_ROOTS". */
  where: string;
}

/** One source's settings by key: "limits.output_chars", "custom_tools.lint". */
export type Layer = Map<string, Entry>;

export interface SourceContext {
  env: Record<string, string | undefined>;
  cwd: string;
  home: string;
  platform: NodeJS.Platform;
  /** One line per problem, "where: what is wrong; allowed: …"; the caller reports them together. */
  problems: string[];
  /** What is allowed but likely a mistake (an empty file), one line each, for stderr. */
  warnings: string[];
}

const MAX_FILE_BYTES = 1024 * 1024;

type Config = Record<string, unknown>;

function valueAt(config: Config, path: string[]): unknown {
  let value: unknown = config;
  for (const segment of path) value = (value as Config | undefined)?.[segment];
  return value;
}

/** Paths made absolute, from `base`: the config file's directory, or the working directory. */
function normalized(leaf: Leaf, value: unknown, base: string, ctx: SourceContext): unknown {
  const { home, platform } = ctx;
  switch (leaf.kind) {
    case "paths":
      return (value as string[]).map((path) => resolvePath(path, base, home, platform));
    case "path":
      return value === "" ? value : resolvePath(value as string, base, home, platform);
    case "program":
      return resolveProgram(value as string, base, home, platform);
    case "object":
      // Language servers: a program given by a relative path is the config file's neighbour.
      return Object.fromEntries(
        Object.entries(value as Record<string, Config>).map(([name, spec]) => {
          const [program, ...args] = spec.command as string[];
          return [name, {
            ...spec,
            command: [resolveProgram(program, base, home, platform), ...args],
          }];
        }),
      );
  }
  return value;
}

/**
 * A custom tool as Settings holds it, with nothing left relative to the file that declared it:
 * `cwd` is taken from the file's directory, and a program given by a relative path from the
 * tool's `cwd`, else the file's directory. A bare program name stays for the PATH lookup.
 */
function customTool(tool: Config, base: string, ctx: SourceContext): Config {
  const { home, platform } = ctx;
  const spec: Config = { ...tool };
  if (typeof tool.cwd === "string") spec.cwd = resolvePath(tool.cwd, base, home, platform);
  const [program, ...args] = tool.command as string[];
  spec.command = [resolveProgram(program, (spec.cwd as string) ?? base, home, platform), ...args];
  return spec;
}

/** The text of a config file; undefined when there is none (or it cannot be used: a problem). */
function readText(
  path: string,
  namedBy: string | undefined,
  problems: string[],
): string | undefined {
  const tooBig = (bytes: number) =>
    `${path}: is ${bytes} bytes, too big for a config file; allowed: at most 1 MB (${MAX_FILE_BYTES} bytes)`;
  try {
    const info = statSync(path);
    if (!info.isFile()) {
      const what = info.isDirectory() ? "a directory" : "not a regular file";
      problems.push(`${path}: is ${what}; allowed: a regular file of JSON with comments`);
      return undefined;
    }
    if (info.size > MAX_FILE_BYTES) {
      problems.push(tooBig(info.size));
      return undefined;
    }
    const bytes = readFileSync(path);
    if (bytes.length > MAX_FILE_BYTES) {
      problems.push(tooBig(bytes.length));
      return undefined;
    }
    // `fatal` turns bytes that are not UTF-8 into an error rather than U+FFFD; a BOM is dropped.
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") {
      if (namedBy) {
        problems.push(
          `${path}: no such file (named by ${namedBy}); allowed: the path of an existing config file`,
        );
      }
    } else if (error instanceof TypeError) {
      problems.push(`${path}: is not UTF-8 text; allowed: a config file encoded in UTF-8`);
    } else {
      problems.push(
        `${path}: cannot be read (${
          code ?? (error as Error).message
        }); allowed: a file toolhost may read`,
      );
    }
    return undefined;
  }
}

/**
 * A config file's layer; undefined when the file is absent. `label` is "user file", "project
 * file" or "--config file"; `namedBy` is the flag or variable that named the file, which makes its
 * absence an error.
 */
export function fileLayer(
  path: string,
  label: string,
  namedBy: string | undefined,
  ctx: SourceContext,
): Layer | undefined {
  const text = readText(path, namedBy, ctx.problems);
  if (text === undefined) return undefined;
  const at = (offset: number) => {
    const { line, column } = lineColumn(text, offset);
    return `${path}:${line}:${column}`;
  };
  const parsed = parseJsonc(text);
  if (!parsed.document) {
    const problem = parsed.problem!;
    ctx.problems.push(`${at(problem.offset)}: ${problem.message}`);
    return new Map();
  }
  const { root } = parsed.document;
  if (parsed.document.value === undefined) {
    // Most likely a file saved before it was written, or settings lost to a bad edit.
    ctx.warnings.push(
      `${path}: the ${label} holds no settings (it is empty, or only whitespace and comments), ` +
        `so it changes nothing; write {} in it if that is on purpose`,
    );
    return new Map();
  }
  const config = parsed.document.value as Config;
  const found: TextProblem[] = duplicateKeys(text, root);
  for (const problem of checkConfig(config)) {
    let node = nodeAt(root, problem.path, problem.at === "key");
    // A problem with something missing points at the nearest thing that is there.
    for (let n = problem.path.length - 1; !node && n >= 0; n--) {
      node = nodeAt(root, problem.path.slice(0, n));
    }
    found.push({ offset: node?.offset ?? 0, message: problem.message });
  }
  if (found.length > 0) {
    found.sort((a, b) => a.offset - b.offset);
    ctx.problems.push(...found.map((problem) => `${at(problem.offset)}: ${problem.message}`));
    return new Map();
  }

  const base = pathsFor(ctx.platform).dirname(path);
  const layer: Layer = new Map();
  const add = (key: string, keys: string[], value: unknown) => {
    const offset = nodeAt(root, keys, true)!.offset;
    layer.set(key, {
      value,
      origin: `${label} ${path}:${lineColumn(text, offset).line}`,
      where: at(offset),
    });
  };
  for (const leaf of LEAVES) {
    const keys = leaf.key.split(".");
    const value = valueAt(config, keys);
    if (value !== undefined) add(leaf.key, keys, normalized(leaf, value, base, ctx));
  }
  // `"sandbox": "read-only"` is the mode alone.
  if (typeof config.sandbox === "string") add("sandbox.mode", ["sandbox"], config.sandbox);
  for (
    const [name, tool] of Object.entries((config[CUSTOM_TOOLS] ?? {}) as Record<string, Config>)
  ) {
    add(`${CUSTOM_TOOLS}.${name}`, [CUSTOM_TOOLS, name], customTool(tool, base, ctx));
  }
  return layer;
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const TRUE = /^(1|true|yes)$/i;
const FALSE = /^(0|false|no)$/i;

/** A value some variable or flag gave, before it is checked. */
interface Given {
  leaf: Leaf;
  value: unknown;
  origin: string;
}

/**
 * A variable's (or a flag's) text as the value it stands for; a number that is not one stays
 * text, for the schema to say what is allowed. Undefined when it sets nothing or is wrong.
 */
function fromText(leaf: Leaf, text: string, origin: string, ctx: SourceContext): unknown {
  switch (leaf.kind) {
    case "paths": {
      const list = text.split(ctx.platform === "win32" ? ";" : ":").map((item) => item.trim())
        .filter((item) => item !== "");
      return list.length > 0 ? list : undefined;
    }
    case "names": {
      const list = text.split(",").map((item) => item.trim()).filter((item) => item !== "");
      return list.length > 0 ? list : undefined;
    }
    case "boolean":
      if (TRUE.test(text)) return true;
      if (FALSE.test(text)) return false;
      ctx.problems.push(
        `${origin}: ${JSON.stringify(text)} is not yes or no; allowed: 1, true, yes, 0, false, no`,
      );
      return undefined;
    case "number":
      return NUMBER.test(text) ? Number(text) : text;
    case "choice":
      return text.toLowerCase();
  }
  return text;
}

/** Checks values from variables or flags against the schema and makes their paths absolute. */
function checked(given: Given[], ctx: SourceContext): Layer {
  const config: Config = {};
  for (const { leaf, value } of given) {
    const keys = leaf.key.split(".");
    let parent = config;
    for (const key of keys.slice(0, -1)) parent = (parent[key] ??= {}) as Config;
    parent[keys.at(-1)!] = value;
  }
  for (const problem of checkConfig(config)) {
    const source = given.find(({ leaf }) =>
      `${problem.path.join(".")}.`.startsWith(`${leaf.key}.`)
    );
    ctx.problems.push(`${source?.origin ?? "configuration"}: ${problem.message}`);
  }
  const layer: Layer = new Map();
  for (const { leaf, value, origin } of given) {
    layer.set(leaf.key, { value: normalized(leaf, value, ctx.cwd, ctx), origin, where: origin });
  }
  return layer;
}

/** TOOLHOST_* variables; blank ones count as unset. */
export function envLayer(ctx: SourceContext): Layer {
  const given: Given[] = [];
  for (const leaf of LEAVES) {
    const name = leaf.env.find((name) => ctx.env[name]?.trim());
    if (name === undefined) continue;
    const origin = `env ${name}`;
    const value = fromText(leaf, ctx.env[name]!.trim(), origin, ctx);
    if (value !== undefined) given.push({ leaf, value, origin });
  }
  return checked(given, ctx);
}

export function flagLayer(flags: ConfigFlags, ctx: SourceContext): Layer {
  const given: Given[] = [];
  for (const leaf of LEAVES) {
    if (!leaf.flag) continue;
    const raw = flags[leaf.flag.name];
    const origin = `flag ${leaf.flag.text}`;
    const value = typeof raw === "string" ? fromText(leaf, raw.trim(), origin, ctx) : raw;
    if (value !== undefined && !(Array.isArray(value) && value.length === 0)) {
      given.push({ leaf, value, origin });
    }
  }
  return checked(given, ctx);
}

/** The project file: --config, else TOOLHOST_CONFIG, else .toolhost.jsonc in the working directory. */
export function projectFile(
  flags: ConfigFlags,
  ctx: SourceContext,
): { path: string; namedBy?: string } {
  const { cwd, home, platform } = ctx;
  if (flags.config) {
    return { path: resolvePath(flags.config, cwd, home, platform), namedBy: "--config" };
  }
  const named = ctx.env.TOOLHOST_CONFIG?.trim();
  if (named) return { path: resolvePath(named, cwd, home, platform), namedBy: "TOOLHOST_CONFIG" };
  return { path: pathsFor(platform).join(cwd, ".toolhost.jsonc") };
}
