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
import { resolve } from "node:path";
import process from "node:process";
import type { CustomToolSpec } from "../../../config/settings.ts";
import { type Tool, TOOL_NAME, ToolError } from "../../../mcp/tool/mod.ts";
import { compileSchema, type JsonSchema } from "../../../mcp/tool/schema/mod.ts";
import {
  RUNS_COMMANDS,
  RUNS_NONDESTRUCTIVE_COMMANDS,
} from "../../_lib/declarations/annotations.ts";
import { expandSlots, parseSlot, showSlot, unescape, withDefaults } from "./custom_argv.ts";
import {
  checkDirectory,
  expandHome,
  findProgram,
  findWindowsProgram,
  runProgram,
} from "./custom_run.ts";
import { windowsEnvWith } from "./windows_shell.ts";
import { commandEnv } from "./login_env.ts";
import { RUN_FACTS_SCHEMA } from "./supervise.ts";

export interface CustomToolOptions {
  /** The directory of the config file that declared the tools: relative paths start there. */
  configDir?: string;
  /** Characters of output kept per call (the beginning and the end). */
  outputChars: number;
  /** Upper bound on any tool's `timeout_ms`. */
  maxTimeoutMs: number;
}

/** Windows finds programs and environment names its own way (findWindowsProgram, windowsEnvWith). */
const WINDOWS = process.platform === "win32";
const DEFAULT_TIMEOUT_MS = 120_000;
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
    // A command the config calls not destructive is taken at its word (and not observed).
    ...(spec.destructive === false
      ? {}
      : { writes: { untracked: "whatever the command writes", observed: true } }),
    // A user's command may run as long as bash's.
    taskSupport: "optional",
    input,
    output: RUN_FACTS_SCHEMA,
    async run(args, ctx) {
      const values = withDefaults(args, properties);
      const argv = expandSlots(slots, values);
      const cwd = fixedCwd ?? (await ctx.roots())[0] ?? process.cwd();
      await checkDirectory(cwd);
      const loginEnv = await commandEnv(ctx).catch(() => undefined);
      if (!loginEnv) throw new ToolError("not started: the call was stopped first");
      const base = fixedCwd ?? configDir ?? cwd;
      // Windows: names are case-insensitive (`Path`), and programs are found with PATHEXT.
      const env = WINDOWS ? windowsEnvWith(loginEnv, spec.env ?? {}) : { ...loginEnv, ...spec.env };
      const file = WINDOWS
        ? findWindowsProgram(program, base, env, cwd)
        : findProgram(program, base, env.PATH, cwd);
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

function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}
