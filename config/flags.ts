/**
 * The command line: `toolhost [flags]` and `toolhost review [flags]`, parsed strictly (an unknown
 * flag is refused with the known one it most likely meant), and the flags worth repeating in a
 * client's configuration (--mcp-json).
 */
import { homedir } from "node:os";
import process from "node:process";
import { parseArgs } from "node:util";
import { resolvePath } from "./paths.ts";
import { quotedJson } from "./quote.ts";
import { closest } from "./suggest.ts";

/** The command line's flags, as node:util's parseArgs takes them. */
const FLAGS = {
  "help": { type: "boolean", short: "h" },
  "version": { type: "boolean", short: "V" },
  "list-tools": { type: "boolean" },
  "max-line-mb": { type: "string" },
  "log-level": { type: "string" },
  "root": { type: "string", multiple: true },
  "allow-private-network": { type: "boolean" },
  "read-only": { type: "boolean" },
  "profile": { type: "string" },
  "config": { type: "string" },
  "sandbox": { type: "string" },
  "print-config": { type: "boolean" },
  "mcp-json": { type: "boolean" },
  "http": { type: "string" },
  "http-token": { type: "string" },
  "http-origin": { type: "string", multiple: true },
  "port": { type: "string" },
  "open": { type: "boolean" },
} as const;

/** What `toolhost review` takes; --port and --open only it. */
const REVIEW_FLAGS = new Set(["help", "root", "config", "log-level", "port", "open"]);
const REVIEW_ONLY = ["port", "open"];

export type Flags = ReturnType<typeof parse>;

/** The command line: which command, and its flags. */
export interface CommandLine {
  /** `toolhost review`: the review app on loopback; otherwise the MCP server. */
  review: boolean;
  flags: Flags;
}

function parse(argv: string[]) {
  return parseArgs({ args: argv, strict: true, allowPositionals: false, options: FLAGS }).values;
}

/**
 * The command line, or a sentence saying what is wrong with it.
 *
 * @example
 * ```ts
 * parseCommandLine(["review", "--root", "app"]); // { review: true, flags: { root: ["app"] } }
 * parseCommandLine(["--prfile", "x"]); // 'unknown flag "--prfile"; did you mean --profile?'
 * ```
 */
export function parseCommandLine(argv: string[]): CommandLine | string {
  const review = argv[0] === "review";
  let flags: Flags;
  try {
    flags = parse(review ? argv.slice(1) : argv);
  } catch (error) {
    return flagProblem(error as Error & { code?: string }, review);
  }
  const given = Object.keys(flags);
  if (review) {
    const other = given.find((name) => !REVIEW_FLAGS.has(name));
    if (other) {
      return `toolhost review takes ${
        [...REVIEW_FLAGS].filter((n) => n !== "help").map((n) => `--${n}`).join(", ")
      }, not --${other}`;
    }
    const port = flags.port;
    if (port !== undefined && (!/^\d{1,5}$/.test(port) || Number(port) > 65535)) {
      return `--port takes a port number (0 picks a free one), not ${quotedJson(port, 40)}`;
    }
  } else {
    const only = given.find((name) => REVIEW_ONLY.includes(name));
    if (only) return `--${only} goes with toolhost review (toolhost review --${only} …)`;
  }
  return { review, flags };
}

/** The parser's complaint, and for an unknown flag the known one it most likely meant. */
function flagProblem(error: Error & { code?: string }, review: boolean): string {
  const unknown = error.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION"
    ? error.message.match(/^Unknown option '(-{1,2}[^']*)'/)?.[1]
    : undefined;
  // The message repeats what was typed: bounded like any echo.
  if (unknown === undefined) {
    return error.message.length > 300 ? `${error.message.slice(0, 300)}…` : error.message;
  }
  const name = unknown.replace(/^-+/, "").split("=")[0];
  const known = Object.keys(FLAGS).filter((flag) =>
    review ? REVIEW_FLAGS.has(flag) : !REVIEW_ONLY.includes(flag)
  );
  const meant = closest(name, known);
  const shown = quotedJson(unknown, 100);
  return meant ? `unknown flag ${shown}; did you mean --${meant}?` : `unknown flag ${shown}`;
}

/** Flags that shape a session, worth repeating in a client's config; others (--list-tools) not. */
const SESSION_FLAGS = new Set(["--read-only", "--allow-private-network"]);
const SESSION_OPTIONS = new Set([
  "--root",
  "--config",
  "--sandbox",
  "--profile",
  "--max-line-mb",
  "--log-level",
]);

/** The session flags given, with paths absolute (as the server itself reads them). */
export function forwardedFlags(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const [name, inline] = argv[i].split(/=(.*)/s, 2);
    if (SESSION_FLAGS.has(name)) out.push(name);
    if (!SESSION_OPTIONS.has(name)) continue;
    const value = inline ?? argv[++i];
    const isPath = name === "--root" || name === "--config";
    out.push(name, isPath ? resolvePath(value, process.cwd(), homedir(), process.platform) : value);
  }
  return out;
}
