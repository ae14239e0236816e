/**
 * Tools the user declares in the config (`custom_tools.<name>`): a program run with the call's
 * arguments placed into an argv template, never through a shell, so no value can inject a
 * command. Each runs like `bash`: its own process group, stdin closed, stdout and stderr captured
 * together as written, output capped, a timeout, cancel and progress.
 *
 * The template, `command`, is an argv array:
 * - `command[0]` is the program, fixed by the user (no placeholders). Without a slash it is looked
 *   up on PATH (the PATH the program will get: `env` may set it); with one, a relative path
 *   starts at the tool's `cwd` when it has one, else at the config file's directory, else at the
 *   directory the command runs in. A leading `~/` means the home directory.
 * - In the other slots `{name}` is replaced by the argument `name`, which must be a property of
 *   the tool's `input` schema (refused when the tools are built). `{{` and `}}` are literal
 *   braces. The value fills its own slot only: `--env={env}` gives one argv entry however many
 *   spaces, quotes, `;`, `$(…)` or newlines the value holds.
 * - Strings go in as they are; numbers and booleans as written by String(); objects as JSON. A
 *   list fills a slot that is exactly `{name}` with one argv entry per element (`git add {paths}`)
 *   and is refused anywhere else.
 * - An argument that is absent (or null) drops every slot that mentions it, whole: `--env={env}`
 *   disappears rather than becoming `--env=`. A property's top-level `default` in the schema is
 *   used when the argument is absent. For an on/off flag, declare an optional string with
 *   `enum: ["--verbose"]` and give it a slot of its own.
 *
 * Not a shell does not mean harmless: a value starting with `-` still reads as an option to most
 * programs. Put `--` before positional placeholders, or give the property a `pattern`.
 *
 * A custom tool whose name a built-in tool already has is not caught here: the program checks
 * names across all its tools when it puts them together (the catalog refuses duplicates).
 */
import { type ChildProcess, type StdioOptions } from "node:child_process";
import { accessSync, constants, mkdtempSync, rmSync, statSync } from "node:fs";
import { stat } from "node:fs/promises";
import { connect, createServer, type Socket } from "node:net";
import { homedir, tmpdir } from "node:os";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import process from "node:process";
import type { Readable } from "node:stream";
import { compileSchema, type JsonSchema } from "../../../mcp/schema.ts";
import { type Tool, TOOL_NAME, type ToolContext } from "../../../mcp/tool.ts";
import { ToolError } from "../../../mcp/tool.ts";
import { RUNS_COMMANDS, RUNS_NONDESTRUCTIVE_COMMANDS } from "../../_lib/annotations.ts";
import { commandEnv } from "./login_env.ts";
import { spawnInGroup } from "../../_lib/process_groups.ts";
import type { CustomToolSpec } from "../../../config/settings.ts";
import { RUN_FACTS_SCHEMA, supervise } from "./supervise.ts";

export interface CustomToolOptions {
  /** The directory of the config file that declared the tools: relative paths start there. */
  configDir?: string;
  /** Characters of output kept per call (the beginning and the end). */
  outputChars: number;
  /** Upper bound on any tool's `timeout_ms`. */
  maxTimeoutMs: number;
}

const DEFAULT_TIMEOUT_MS = 120_000;
/** How long setting up the shared output socket may take before plain pipes are used. */
const SOCKET_SETUP_MS = 1_000;
const SPEC_KEYS = ["description", "input", "command", "cwd", "timeout_ms", "env", "destructive"];
const EMPTY_INPUT = { type: "object", properties: {}, additionalProperties: false } as const;

/**
 * One Tool per declared entry. Throws an Error naming the tool and what is wrong when an entry
 * cannot work (bad name, placeholder not in the schema, malformed field), so a broken config is
 * reported at start-up, not at the first call.
 */
export function customTools(
  specs: Record<string, CustomToolSpec>,
  options: CustomToolOptions,
): Tool[] {
  return Object.entries(specs).map(([name, spec]) => customTool(name, spec, options));
}

/**
 * Compiles each tool's input schema, throwing an Error naming the first tool whose schema is not
 * valid JSON Schema. Call it once at start-up when the config declares custom tools: otherwise
 * such a tool fails every call with an internal error.
 */
export async function checkInputSchemas(tools: Tool[]): Promise<void> {
  for (const tool of tools) {
    try {
      await compileSchema(tool.input);
    } catch (error) {
      throw new Error(
        `custom tool ${JSON.stringify(tool.name)}: input is not a valid JSON Schema: ${
          (error as Error).message
        }`,
      );
    }
  }
}

/** A piece of a template slot: literal text, or the argument of that name. */
type Piece = string | { name: string };

interface Slot {
  pieces: Piece[];
  /** Set when the slot is exactly `{name}`: it may expand to several entries, or to none. */
  whole?: string;
}

function customTool(name: string, raw: CustomToolSpec, options: CustomToolOptions): Tool {
  const fail = (problem: string): never => {
    throw new Error(`custom tool ${JSON.stringify(name)}: ${problem}`);
  };
  if (!TOOL_NAME.test(name)) fail(`the name must match ${TOOL_NAME}`);
  const spec = checkSpec(raw, fail);
  const input = inputSchema(spec.input, fail);
  const properties = (input.properties ?? {}) as Record<string, Record<string, unknown>>;

  const program = unescape(expandHome(spec.command[0])) ?? fail(
    `command[0] ${
      JSON.stringify(spec.command[0])
    } must name a fixed program; placeholders are allowed only in the arguments after it`,
  );
  const slots = spec.command.slice(1).map((text, index) => {
    const where = `command[${index + 1}] ${JSON.stringify(text)}`;
    const slot = parseSlot(text, (problem) => fail(`${where}: ${problem}`));
    for (const piece of slot.pieces) {
      if (typeof piece === "string") continue;
      if (!Object.hasOwn(properties, piece.name)) {
        const known = Object.keys(properties);
        fail(
          `${where} uses {${piece.name}}, which is not a property of its input schema (${
            known.length ? `properties: ${known.join(", ")}` : "it has no properties"
          }); add it to input.properties, or write {{ and }} for literal braces`,
        );
      }
      if (!slot.whole && properties[piece.name]?.type === "array") {
        fail(
          `${where}: {${piece.name}} is a list, which can only fill a slot of its own ("{${piece.name}}")`,
        );
      }
    }
    return slot;
  });

  const configDir = options.configDir ? resolve(expandHome(options.configDir)) : undefined;
  const fixedCwd = spec.cwd === undefined
    ? undefined
    : resolve(configDir ?? process.cwd(), expandHome(spec.cwd));
  if (spec.timeout_ms !== undefined && spec.timeout_ms > options.maxTimeoutMs) {
    fail(
      `timeout_ms ${spec.timeout_ms} is above limits.bash_max_timeout_ms (${options.maxTimeoutMs}); ` +
        "lower it or raise that limit",
    );
  }
  const timeoutMs = Math.min(spec.timeout_ms ?? DEFAULT_TIMEOUT_MS, options.maxTimeoutMs);
  const annotations = spec.destructive === false ? RUNS_NONDESTRUCTIVE_COMMANDS : RUNS_COMMANDS;
  const shown = [program, ...spec.command.slice(1)].map(showSlot).join(" ");
  let intro = spec.description.trim();
  if (intro && !/[.!?]$/.test(intro)) intro += ".";
  const description = `${intro}${intro ? " " : ""}Runs \`${shown}\` (no shell), stopped ` +
    `after ${formatSeconds(timeoutMs)}.`;

  return {
    name,
    title: name,
    description,
    annotations,
    input,
    output: RUN_FACTS_SCHEMA,
    async run(args, ctx) {
      const values = withDefaults(args, properties);
      const argv = expandSlots(slots, values);
      const cwd = fixedCwd ?? (await ctx.roots())[0] ?? process.cwd();
      await checkDirectory(cwd);
      const loginEnv = await commandEnv(ctx).catch(() => undefined);
      if (!loginEnv) throw new ToolError("not started: the call was stopped first");
      const env = { ...loginEnv, ...spec.env };
      const file = findProgram(program, fixedCwd ?? configDir ?? cwd, env.PATH, cwd);
      return await runProgram(file, program, argv, {
        cwd,
        env,
        timeoutMs,
        outputChars: options.outputChars,
      }, ctx);
    },
  };
}

/** The spec as declared, after checking each field's type: config files are untyped JSON. */
function checkSpec(raw: CustomToolSpec, fail: (problem: string) => never): CustomToolSpec {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) fail("must be an object");
  const unknown = Object.keys(raw).filter((key) => !SPEC_KEYS.includes(key));
  if (unknown.length) {
    fail(`unknown field ${unknown.join(", ")} (the fields are ${SPEC_KEYS.join(", ")})`);
  }
  if (typeof raw.description !== "string") fail("description must be a string");
  const command = raw.command as unknown;
  if (
    !Array.isArray(command) || command.length === 0 ||
    !command.every((slot) => typeof slot === "string") || command[0] === ""
  ) {
    fail('command must be a list of strings, the program first, like ["git", "status"]');
  }
  if (raw.cwd !== undefined && (typeof raw.cwd !== "string" || raw.cwd === "")) {
    fail("cwd must be a non-empty string");
  }
  const timeout = raw.timeout_ms as unknown;
  if (timeout !== undefined && !(Number.isInteger(timeout) && (timeout as number) > 0)) {
    fail("timeout_ms must be a positive whole number of milliseconds");
  }
  const env = raw.env as unknown;
  if (
    env !== undefined &&
    (typeof env !== "object" || env === null || Array.isArray(env) ||
      !Object.values(env).every((value) => typeof value === "string"))
  ) {
    fail("env must be an object whose values are strings");
  }
  if (raw.destructive !== undefined && typeof raw.destructive !== "boolean") {
    fail("destructive must be true or false");
  }
  return raw;
}

function inputSchema(
  input: Record<string, unknown> | undefined,
  fail: (problem: string) => never,
): JsonSchema & { type: "object" } {
  if (input === undefined) return structuredClone(EMPTY_INPUT) as JsonSchema & { type: "object" };
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    fail("input must be a JSON Schema object");
  }
  if (input.type !== undefined && input.type !== "object") {
    fail(`input must describe an object (type "object"), not ${JSON.stringify(input.type)}`);
  }
  const properties = input.properties;
  if (
    properties !== undefined &&
    (typeof properties !== "object" || properties === null || Array.isArray(properties))
  ) {
    fail("input.properties must be an object");
  }
  // A misspelled optional argument must not vanish silently from the command.
  return { additionalProperties: false, ...input, type: "object" };
}

/** Splits a template slot into literal text and placeholders. */
function parseSlot(text: string, fail: (problem: string) => never): Slot {
  const pieces: Piece[] = [];
  let literal = "";
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if ((char === "{" || char === "}") && text[i + 1] === char) {
      literal += char;
      i++;
    } else if (char === "}") {
      fail("a lone } (write }} for a literal brace)");
    } else if (char === "{") {
      const end = text.indexOf("}", i + 1);
      const name = end < 0 ? "" : text.slice(i + 1, end);
      if (end < 0 || name === "" || name.includes("{")) {
        fail("a { that does not start a {placeholder} (write {{ for a literal brace)");
      }
      if (literal) pieces.push(literal);
      literal = "";
      pieces.push({ name });
      i = end;
    } else {
      literal += char;
    }
  }
  if (literal || pieces.length === 0) pieces.push(literal);
  const only = pieces.length === 1 ? pieces[0] : undefined;
  return { pieces, whole: typeof only === "object" ? only.name : undefined };
}

/** The slot's text with `{{`/`}}` unescaped; undefined when it holds a placeholder. */
function unescape(text: string): string | undefined {
  let slot: Slot;
  try {
    slot = parseSlot(text, (problem) => {
      throw new Error(problem);
    });
  } catch {
    return undefined;
  }
  return slot.pieces.every((piece) => typeof piece === "string") ? slot.pieces.join("") : undefined;
}

function withDefaults(
  args: Record<string, unknown>,
  properties: Record<string, Record<string, unknown>>,
): Record<string, unknown> {
  let values = args;
  for (const [name, schema] of Object.entries(properties)) {
    const given = own(args, name) !== undefined;
    if (!given && schema && typeof schema === "object" && "default" in schema) {
      if (values === args) values = { ...args };
      values[name] = schema.default;
    }
  }
  return values;
}

/** An argument's value; never something inherited ("constructor", "toString"). */
function own(values: Record<string, unknown>, name: string): unknown {
  return Object.hasOwn(values, name) ? values[name] : undefined;
}

/** The argv entries after the program, from the template and the call's arguments. */
function expandSlots(slots: Slot[], values: Record<string, unknown>): string[] {
  const argv: string[] = [];
  for (const slot of slots) {
    if (slot.whole !== undefined) {
      const value = own(values, slot.whole);
      if (value === undefined || value === null) continue;
      if (Array.isArray(value)) {
        for (const item of value) argv.push(checkText(slot.whole, asText(item)));
      } else {
        argv.push(checkText(slot.whole, asText(value)));
      }
      continue;
    }
    let text = "";
    let absent = false;
    for (const piece of slot.pieces) {
      if (typeof piece === "string") {
        text += piece;
        continue;
      }
      const value = own(values, piece.name);
      if (value === undefined || value === null) {
        absent = true;
        break;
      }
      if (Array.isArray(value)) {
        throw new ToolError(
          `${piece.name} must not be a list here: it is part of a longer argument; pass a single value`,
        );
      }
      text += checkText(piece.name, asText(value));
    }
    if (!absent) argv.push(text);
  }
  return argv;
}

function asText(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value) ?? String(value);
}

/** No program can receive a NUL character in an argument: say so rather than fail to spawn. */
function checkText(name: string, text: string): string {
  if (text.includes("\0")) {
    throw new ToolError(
      `${name} contains a NUL character (\\u0000), which cannot be passed to a program; remove it`,
    );
  }
  return text;
}

function expandHome(path: string): string {
  return path === "~" || path.startsWith("~/") ? join(homedir(), path.slice(1)) : path;
}

async function checkDirectory(path: string): Promise<void> {
  const info = await stat(path).catch(() => null);
  if (!info?.isDirectory()) {
    throw new ToolError(
      `cwd ${
        JSON.stringify(path)
      } is not an existing directory; create it or fix the tool's cwd in the config`,
    );
  }
}

/**
 * The program's absolute path. With a slash, relative to `base`; without, the first executable
 * file of that name on `path` (as the program's environment will have it).
 */
function findProgram(
  name: string,
  base: string,
  path: string | undefined,
  cwd: string,
): string {
  if (name.includes("/")) {
    const file = resolve(base, name);
    const info = statOrNull(file);
    if (!info) {
      throw new ToolError(
        `cannot run ${
          JSON.stringify(name)
        }: ${file} does not exist (cwd ${cwd}); fix command[0] in the config`,
      );
    }
    if (info.isDirectory()) {
      throw new ToolError(
        `cannot run ${JSON.stringify(name)}: ${file} is a directory (cwd ${cwd})`,
      );
    }
    return file;
  }
  // execvp's own default when PATH is unset.
  const dirs = (path ?? "/bin:/usr/bin").split(delimiter).filter(Boolean);
  for (const dir of dirs) {
    const file = resolve(isAbsolute(dir) ? dir : resolve(cwd, dir), name);
    try {
      accessSync(file, constants.X_OK);
      if (statSync(file).isFile()) return file;
    } catch {
      // not here
    }
  }
  throw new ToolError(
    `cannot run ${JSON.stringify(name)}: no executable of that name on PATH (${
      dirs.join(delimiter) || "empty"
    }; cwd ${cwd}); install it, or give its full path as command[0] in the config`,
  );
}

function statOrNull(file: string) {
  try {
    return statSync(file);
  } catch {
    return null;
  }
}

interface RunOptions {
  cwd: string;
  env: Record<string, string | undefined>;
  timeoutMs: number;
  outputChars: number;
}

/** Runs the program in its own process group and shapes the result as `bash` does. */
async function runProgram(
  file: string,
  program: string,
  argv: string[],
  options: RunOptions,
  ctx: ToolContext,
) {
  if (ctx.signal.aborted) throw new ToolError("not started: the call was stopped first");
  const shared = await sharedOutput();
  return await supervise(() => {
    const stdio: StdioOptions = ["ignore", shared?.writer ?? "pipe", shared?.writer ?? "pipe"];
    let child: ChildProcess;
    try {
      child = spawnInGroup(file, argv, {
        cwd: options.cwd,
        env: options.env,
        stdio,
        argv0: program,
      });
    } catch (error) {
      shared?.reader.destroy();
      throw spawnError(error, program, file, options.cwd);
    } finally {
      // The child has its own copy; ours would keep the reader from ever seeing end-of-file.
      shared?.writer.destroy();
    }
    const streams = (shared ? [shared.reader] : [child.stdout, child.stderr]) as Readable[];
    return { child, streams };
  }, {
    timeoutMs: options.timeoutMs,
    outputChars: options.outputChars,
    cutHint: "narrow the arguments to get less output",
    startError: (error) => spawnError(error, program, file, options.cwd),
  }, ctx);
}

function spawnError(error: unknown, program: string, file: string, cwd: string): ToolError {
  const code = (error as NodeJS.ErrnoException).code;
  const where = `${JSON.stringify(program)} (${file}, cwd ${cwd})`;
  if (code === "ENOENT") {
    return new ToolError(
      `cannot run ${where}: not found; if it is a script, check that the interpreter on its #! line exists`,
    );
  }
  if (code === "EACCES") {
    return new ToolError(`cannot run ${where}: permission denied; is it executable (chmod +x)?`);
  }
  if (code === "E2BIG") {
    return new ToolError(`cannot run ${where}: the arguments are too long; pass less at once`);
  }
  return new ToolError(`cannot run ${where}: ${(error as Error).message}`);
}

/**
 * A connected pair of Unix sockets: the program gets `writer` as both stdout and stderr, so the
 * two interleave exactly as written (two pipes would be read in whatever order they are ready).
 * Made in a private directory, so no other user can connect first. Undefined when this fails,
 * and the output then comes through two pipes.
 */
async function sharedOutput(): Promise<{ writer: Socket; reader: Socket } | undefined> {
  let dir: string | undefined;
  const server = createServer();
  server.on("error", () => {}); // a failed listen rejects below
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(new Error("too slow")), SOCKET_SETUP_MS);
  });
  late.catch(() => {});
  let writer: Socket | undefined;
  let accepted: Promise<Socket> | undefined;
  try {
    // Synchronous: these take microseconds, where their async forms cost a thread-pool trip.
    dir = mkdtempSync(join(tmpdir(), "toolhost-out-"));
    const path = join(dir, "out");
    await Promise.race([
      late,
      new Promise<void>((done, fail) => {
        server.once("error", fail);
        server.listen(path, done);
      }),
    ]);
    accepted = new Promise<Socket>((done) => server.once("connection", done));
    const client = connect(path);
    writer = client;
    client.on("error", () => {});
    await Promise.race([
      late,
      new Promise<void>((done, fail) => {
        client.once("error", fail);
        client.once("connect", done);
      }),
    ]);
    return { writer: client, reader: await Promise.race([late, accepted]) };
  } catch {
    writer?.destroy();
    accepted?.then((socket) => socket.destroy());
    return undefined;
  } finally {
    clearTimeout(timer);
    server.close();
    try {
      if (dir) rmSync(dir, { recursive: true, force: true });
    } catch {
      // an empty directory left in the temporary directory; nothing depends on it
    }
  }
}

/** A template slot as the description shows it: plain when it reads unambiguously. */
function showSlot(slot: string): string {
  return /^[\w@%+=:,./{}~-]+$/.test(slot) ? slot : JSON.stringify(slot);
}

function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}
