/**
 * toolhost: an MCP server over stdio. This file is the command line: flags, wiring, signals and
 * the orderly exit. It is the only place that calls process.exit.
 */
import { realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, parse } from "node:path";
import { fileURLToPath } from "node:url";
import process from "node:process";
import { parseArgs } from "node:util";
import { ConfigError, loadConfig, type LoadedConfig } from "./config/load.ts";
import { type Launch, mcpJson, profileHint } from "./config/mcp_json.ts";
import { resolvePath, stateDirectory } from "./config/paths.ts";
import { formatConfig } from "./config/print.ts";
import { quotedJson } from "./config/quote.ts";
import { closest } from "./config/suggest.ts";
import pkg from "./package.json" with { type: "json" };
import {
  atLeast,
  describeLogData,
  LOG_LEVELS,
  type LogLevel,
  stderrLogger,
  SUPPORTED_VERSIONS,
} from "./mcp/wire/mod.ts";
import { connect, McpService } from "./mcp/server/mod.ts";
import { type Contribution, runShutdownHooks, type ShutdownHook } from "./mcp/features/mod.ts";
import { HttpGuard, isLoopbackHost } from "./mcp/http/guard.ts";
import { authPlan } from "./mcp/http/auth_settings.ts";
import { serveStdio, StdoutWriter } from "./mcp/stdio/mod.ts";
import { enableWatchdog, killAllGroups } from "./tools/_lib/processes/mod.ts";
import { establishRoots } from "./tools/_lib/sandbox/mod.ts";
import { assemble, type Assembled } from "./tools/_catalog/assemble.ts";
import { SERVER_ICON } from "./tools/_catalog/icons.ts";
import { sandboxStatus, startLine, statusLines } from "./tools/_lib/confine/mod.ts";

declare const TOOLHOST_COMMIT: string | undefined;
/** Defined by scripts/build.ts: present only in a compiled binary. */
const COMPILED = typeof TOOLHOST_COMMIT === "string";
const COMMIT = COMPILED ? TOOLHOST_COMMIT : "unknown (run from source)";

const INSTRUCTIONS = "toolhost works on the user's machine. Use `bash` for commands that " +
  "finish and `bash_background` for servers, watchers and REPLs (then bash_output, bash_input, " +
  "bash_kill). For files prefer read_file, edit_file, write_file, glob, grep and list_dir over " +
  "shell commands: they stay inside the allowed roots (list_roots), never corrupt a file, and " +
  "bound their output. Long outputs are capped and say how to get the rest.";

const HELP = `toolhost ${pkg.version}: an MCP server over stdio with a practical toolset.

Usage: toolhost [options]

An MCP client starts toolhost itself: put the path of this binary in the "command" of your
client's .mcp.json. Messages are JSON-RPC 2.0, one per line, on stdin and stdout; logs go to
stderr. Speaks MCP ${SUPPORTED_VERSIONS.join(", ")}.

Settings come from these flags, then TOOLHOST_* environment variables, then the project file
(.toolhost.jsonc in the working directory, or --config), then the user file
(~/.config/toolhost/config.jsonc on Linux); see --print-config and toolhost.schema.json.

Options:
  --root DIR          let tools work in DIR (repeatable); without it, the client's roots when it
                      offers them, else the directory toolhost was started in
  --profile NAME      which tools to offer: full (default), companion (only what a client
                      with its own file and shell tools lacks: Claude Code, Cursor, Gemini
                      CLI, Codex) or read-only
  --read-only         offer only the tools annotated read-only (and commands, searches and
                      language servers write nothing outside their temporary directory)
  --sandbox MODE      what commands, searches and language servers may write: workspace-write
                      (default: the roots, a private $TMPDIR, the build caches), read-only, or
                      off; they never read credentials and have no network (docs/security.md)
  --allow-private-network
                      let fetch_url reach loopback, private, link-local and cloud-metadata
                      addresses (refused by default)
  --http [HOST:]PORT  serve MCP over Streamable HTTP at http://HOST:PORT/mcp instead of
                      stdio (HOST defaults to 127.0.0.1; PORT 0 picks a free one); also
                      WebSocket on /mcp and the 2024-11-05 HTTP+SSE transport on /sse
  --http-token TOKEN  require "Authorization: Bearer TOKEN"; needed whenever HOST is not a
                      loopback address, unless OAuth is on (http.auth.issuer in the user
                      config; docs/http.md). Prefer TOOLHOST_HTTP_TOKEN: other users of this
                      machine can read a process's arguments
  --http-origin URL   also accept browser requests from this origin (repeatable); only
                      toolhost's own pages (/ui/) are accepted otherwise, loopback or not
  --max-line-mb N     refuse messages over N MB (default 64; counted in characters,
                      one per byte for JSON's mostly ASCII text)
  --log-level LEVEL   stderr verbosity: ${LOG_LEVELS.join(", ")} (default info)
  --config PATH       read this project file instead of ./.toolhost.jsonc
  --print-config      print the settings in effect, and where each came from, and exit
  --mcp-json          print a .mcp.json entry that starts this toolhost with these flags, and exit
  --list-tools        print the tools offered and exit
  -V, --version       print the version and the commit it was built from
  -h, --help          print this help
`;

export interface MainOptions {
  /** Added to what tools/ offers (test fixtures compiled into a test binary only). */
  extra?: Contribution[];
}

/** The settings from every source, or exit 2 with the report of what is wrong. */
function loadSettings(flags: ReturnType<typeof parseFlags>): LoadedConfig {
  try {
    const loaded = loadConfig({
      flags: {
        root: flags.root,
        read_only: flags["read-only"],
        profile: flags.profile,
        allow_private_network: flags["allow-private-network"],
        max_line_mb: flags["max-line-mb"],
        log_level: flags["log-level"],
        config: flags.config,
        sandbox: flags.sandbox,
      },
      env: process.env,
      cwd: process.cwd(),
      home: homedir(),
      platform: process.platform,
    });
    if (atLeast("warning", loaded.settings.logLevel as LogLevel)) {
      for (const warning of loaded.warnings) process.stderr.write(`toolhost warning: ${warning}\n`);
    }
    return loaded;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    configError(error.message);
  }
}

function configError(report: string): never {
  process.stderr.write(`toolhost: the configuration has problems:\n${report}\n`);
  process.exit(2);
}

/** How this toolhost was started: the compiled binary, or a runtime running main.ts. */
function launch(viaNpm: boolean): Launch {
  if (viaNpm) return { execPath: process.execPath, viaNpm: true };
  // A compiled binary is its own executable (even one built without the commit defined).
  if (COMPILED || !/^(deno|bun)(\.exe)?$/.test(basename(process.execPath))) {
    return { execPath: process.execPath };
  }
  const runtime = "Bun" in globalThis ? "bun" : "deno";
  return { execPath: process.execPath, sourceMain: fileURLToPath(import.meta.url), runtime };
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

/** Where --http listens, and how; exits 2 when the address cannot be used safely. */
function httpAddress(flags: ReturnType<typeof parseFlags>, loaded: LoadedConfig) {
  const spec = flags.http!;
  const match = spec.match(/^(?:(\[[0-9a-fA-F:.]+\]|[^:\s]+):)?(\d{1,5})$/);
  const port = Number(match?.[2]);
  if (!match || port > 65535) {
    usageError(`--http takes [HOST:]PORT (like 8080 or 127.0.0.1:8080), not ${spec}`);
  }
  const host = (match[1] ?? "127.0.0.1").replace(/^\[(.*)\]$/, "$1");
  const token = flags["http-token"] ?? process.env.TOOLHOST_HTTP_TOKEN ?? undefined;
  delete process.env.TOOLHOST_HTTP_TOKEN; // commands we run must not see it
  const places = loaded.places;
  const where = (key: string) => places.get(key) ?? key;
  const auth = authPlan(loaded.settings.http.auth, where, process.env, isLoopbackHost(host));
  if (Array.isArray(auth)) configError(auth.join("\n"));
  if (auth && token) {
    usageError(
      `--http-token (or TOOLHOST_HTTP_TOKEN) and http.auth.issuer (${
        places.get("http.auth.issuer")
      }) cannot both be set: clients send one bearer token, an OAuth access token or the ` +
        "static one; drop one of them",
    );
  }
  if (!isLoopbackHost(host) && !token && !auth) {
    usageError(
      `--http ${spec} listens beyond this machine: set a token with --http-token or ` +
        "TOOLHOST_HTTP_TOKEN (clients then send Authorization: Bearer <token>)",
    );
  }
  for (const origin of flags["http-origin"] ?? []) {
    if (!/^https?:\/\/[^/\s]+$/.test(origin)) {
      usageError(`--http-origin takes an origin like https://example.com, not ${origin}`);
    }
  }
  return { host, port, token: token || undefined, origins: flags["http-origin"] ?? [], auth };
}

/** The session flags given, with paths absolute (as the server itself reads them). */
function forwardedFlags(argv: string[]): string[] {
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

function usageError(message: string): never {
  process.stderr.write(`toolhost: ${message}\nRun toolhost --help for the options.\n`);
  process.exit(2);
}

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
} as const;

const FLAG_NAMES = Object.keys(FLAGS);

function parseFlags(argv: string[]) {
  try {
    return parseArgs({ args: argv, strict: true, allowPositionals: false, options: FLAGS }).values;
  } catch (error) {
    usageError(flagProblem(error as Error & { code?: string }));
  }
}

/** The parser's complaint, and for an unknown flag the known one it most likely meant. */
function flagProblem(error: Error & { code?: string }): string {
  const unknown = error.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION"
    ? error.message.match(/^Unknown option '(-{1,2}[^']*)'/)?.[1]
    : undefined;
  // The message repeats what was typed: bounded like any echo.
  if (unknown === undefined) {
    return error.message.length > 300 ? `${error.message.slice(0, 300)}…` : error.message;
  }
  const name = unknown.replace(/^-+/, "").split("=")[0];
  const meant = closest(name, [...FLAG_NAMES]);
  const shown = quotedJson(unknown, 100);
  return meant ? `unknown flag ${shown}; did you mean --${meant}?` : `unknown flag ${shown}`;
}

/**
 * Whether the working directory is too wide to be the roots nobody named: the whole disk (Claude
 * Desktop starts servers in /) or the home directory. The file tools then refuse until roots are
 * named (tools/_lib/sandbox.ts says how); naming / or ~ with --root still allows it.
 */
function tooWideToGuess(cwd: string): boolean {
  const real = (path: string) => {
    try {
      return realpathSync(path);
    } catch {
      return path;
    }
  };
  const dir = real(cwd);
  return dir === parse(dir).root || dir === real(homedir());
}

/** The one line at start that says where the tools may work. */
function rootsInForce(roots: string[], fallback: string[]): string {
  if (roots.length > 0) return `roots: ${roots.join(", ")}`;
  if (fallback.length > 0) {
    return `roots: the client's when it offers them, else ${fallback.join(", ")} (the working ` +
      "directory; name others with --root)";
  }
  return `roots: the client's when it offers them, else none: started in ${process.cwd()} ` +
    'without --root, so the file tools refuse until roots are named (--root DIR, "roots" in ' +
    "the config file, or the client's roots)";
}

/** Said on stderr when a person starts toolhost in a terminal rather than a client starting it. */
const BY_HAND =
  "toolhost is an MCP server: it is waiting for JSON-RPC messages on stdin, one per " +
  "line, from an MCP client. To use it, put it in your client's configuration (toolhost " +
  "--mcp-json prints the entry; toolhost --help lists the options), or try it here: paste\n" +
  '  {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",' +
  '"capabilities":{},"clientInfo":{"name":"me","version":"1"}}}\n' +
  "and end with Ctrl-D.\n";

/** The whole shutdown, from the signal or end of input to exit, fits in this. */
const SHUTDOWN_BUDGET_MS = 1800;
/** The part of it kept for the shutdown hooks (the journal's flush) once the transport closed. */
const HOOKS_BUDGET_MS = 500;

export async function main(argv: string[], options: MainOptions = {}): Promise<never> {
  // Before anything else: a client may stop us while we start.
  let stop = (_why: string, _graceMs: number): Promise<never> => process.exit(0);
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    process.on(signal, () => stop(signal, 0));
  }
  // Set by the npm package's launcher; taken out so that commands we run do not inherit it.
  const viaNpm = process.env.TOOLHOST_NPM_LAUNCHER === "1";
  delete process.env.TOOLHOST_NPM_LAUNCHER;
  const flags = parseFlags(argv);
  if (flags.help) {
    process.stdout.write(HELP);
    process.exit(0);
  }
  if (flags.version) {
    process.stdout.write(`toolhost ${pkg.version} (commit ${COMMIT})\n`);
    process.exit(0);
  }
  const loaded = loadSettings(flags);
  const { settings, places } = loaded;
  if (flags["mcp-json"]) {
    const forwarded = forwardedFlags(argv);
    process.stdout.write(mcpJson(launch(viaNpm), forwarded));
    const hint = profileHint(forwarded);
    if (hint) process.stderr.write(hint);
    process.exit(0);
  }
  const http = flags.http !== undefined ? httpAddress(flags, loaded) : undefined;
  const maxLineMb = settings.limits.maxLineMb;
  const logLevel = settings.logLevel as LogLevel;
  const roots = settings.roots;
  for (const dir of roots) {
    if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
      configError(`${places.get("roots")}: root ${dir} is not an existing directory`);
    }
  }
  // Each root is looked up by name now, once, and held open: a later rename cannot redirect it.
  const fallback = tooWideToGuess(process.cwd()) ? [] : [process.cwd()];
  await establishRoots(roots.length > 0 ? roots : fallback);

  let assembled: Assembled;
  try {
    assembled = await assemble(settings, options.extra);
  } catch (error) {
    // Custom tools are checked when built: say which file or variable declared the bad one.
    const message = (error as Error).message;
    const name = message.match(/^custom(?: tool |_tools\.)"?([^":]+)"?/)?.[1];
    const place = name ? places.get(`custom_tools.${name}`) : undefined;
    configError(place ? `${place}: ${message}` : message);
  }
  const stateDir = stateDirectory(settings.stateDir, process.env, homedir(), process.platform);
  const sandbox = () => sandboxStatus(settings, roots.length > 0 ? roots : fallback, stateDir);
  if (flags["print-config"]) {
    process.stdout.write(formatConfig(settings, loaded.origins, loaded.files));
    // The policy in force, as comments: the output stays a JSONC file.
    const lines = statusLines(await sandbox());
    process.stdout.write(lines.map((line) => `// ${line}\n`).join(""));
    process.exit(0);
  }
  const { tools, warnings, removed, shutdownHooks, ...contributions } = assembled;
  if (flags["list-tools"]) {
    const width = Math.max(...tools.map((t) => t.name.length));
    const lines = tools.map((t) =>
      `${t.name.padEnd(width)}  ${t.title ?? t.description.split(". ")[0]}`
    );
    process.stdout.write(lines.sort().join("\n") + "\n");
    process.exit(0);
  }

  const logger = stderrLogger(logLevel);
  logger.log("info", rootsInForce(roots, fallback));
  // The sandbox's line once this machine's answer is in: over stdio the probe runs beside the
  // first requests (a command waits for the same answer); over HTTP it comes before "serving".
  const sandboxLine = sandbox().then(
    (status) => () => logger.log("info", startLine(status)),
    (error) => () => logger.log("error", `sandbox: ${(error as Error).message}`),
  );
  if (!http && process.stdin.isTTY) process.stderr.write(BY_HAND);
  // What our commands start dies with us even when we are killed outright (SIGKILL).
  enableWatchdog();
  for (const warning of warnings) logger.log("warning", warning);
  for (const { name, why } of removed) logger.log("debug", `tool ${name} is off: ${why}`);
  const service = new McpService({
    info: { name: "toolhost", title: "toolhost", version: pkg.version },
    icons: [SERVER_ICON],
    instructions: INSTRUCTIONS,
    tools,
    ...contributions,
    logger,
    roots: { fixed: roots, fallback },
    config: settings,
    state: { dir: stateDir },
  });
  // A bug in one tool must not end everyone's session: report it and keep serving.
  process.on("unhandledRejection", (reason) => {
    logger.log("error", `unhandled rejection: ${describeLogData(reason)}`);
  });
  const maxBytes = Math.floor(maxLineMb * 1024 * 1024);
  const stopping = (serving: Serving) => (stop = stopper(service, serving, shutdownHooks));
  if (http) return serveHttp(service, http, maxBytes, stopping, sandboxLine);
  void sandboxLine.then((log) => log());

  const writer = new StdoutWriter(process.stdout, () => stop("stdout closed", 0));
  const server = connect(service, writer);
  service.programLog = (level, logger, data) => server.log(level, logger, data);
  stopping({
    open: () => `${server.inFlight} request(s) in flight`,
    // On end of input, work already under way gets a moment to answer (`echo ... | toolhost`).
    settle: (ms) => server.settled(ms),
    close: (ms) => server.shutdown(Math.min(1000, ms)),
    flush: (ms) => writer.flush(ms),
  });

  try {
    await serveStdio(server, writer, process.stdin, maxBytes);
  } catch (error) {
    logger.log("error", `reading stdin failed: ${(error as Error).message}`);
  }
  return stop("end of input", 300);
}

type Stop = (why: string, graceMs: number) => Promise<never>;

/** What the shutdown asks of the transport being served. */
interface Serving {
  /** What is still open, for the log line ("3 request(s) in flight"). */
  open(): string;
  /** Waits, at most `ms`, for work under way to answer by itself (on end of input). */
  settle?(ms: number): Promise<void>;
  /** Stops what runs, answers it and closes the transport, within about `ms`. */
  close(ms: number): Promise<void>;
  /** Writes out what is still queued for the client, within `ms`. */
  flush?(ms: number): Promise<void>;
}

/**
 * The orderly exit, the same for every transport, within SHUTDOWN_BUDGET_MS: tasks stopped, the
 * transport closed (its calls answered), child processes killed, the modules' shutdown hooks run
 * (the journal's queued lines), what is left for the client written, then exit.
 */
function stopper(service: McpService, serving: Serving, hooks: readonly ShutdownHook[]): Stop {
  const logger = service.options.logger;
  let stopping = false;
  return async (why, graceMs) => {
    if (stopping) return new Promise<never>(() => {});
    stopping = true;
    const deadline = Date.now() + SHUTDOWN_BUDGET_MS;
    const left = () => Math.max(0, deadline - Date.now());
    // The end of input is how every session ends: routine, so not worth an info line.
    logger.log(
      why === "end of input" ? "debug" : "info",
      `stopping (${why}) with ${serving.open()}`,
    );
    if (graceMs > 0 && serving.settle) await serving.settle(Math.min(graceMs, left()));
    service.tasks?.close();
    // What is left after closing is kept for the hooks and the last writes.
    await serving.close(Math.max(0, left() - HOOKS_BUDGET_MS));
    killAllGroups();
    await runShutdownHooks(hooks, Math.min(HOOKS_BUDGET_MS, left()), logger);
    await serving.flush?.(left());
    process.exit(0);
  };
}

/** --http: serves until a signal; stdin is not read (the server is not a client's child). */
async function serveHttp(
  service: McpService,
  address: ReturnType<typeof httpAddress>,
  maxBodyBytes: number,
  stopping: (serving: Serving) => void,
  sandboxLine: Promise<() => void>,
): Promise<never> {
  // Loaded here: a stdio server, the common case, never needs them.
  const [{ HttpTransport }, { serve }, oauth] = await Promise.all([
    import("./mcp/http/transport.ts"),
    import("./mcp/http/serve.ts"),
    address.auth ? import("./mcp/http/auth/mod.ts") : undefined,
  ]);
  const logger = service.options.logger;
  // The default resource URI names the port, known once listening (before any request).
  let resource = address.auth?.resource;
  const auth = address.auth &&
    oauth?.createAuthorizer({ ...address.auth, resource: () => resource!, logger });
  const transport = new HttpTransport({
    service,
    logger,
    maxBodyBytes,
    guard: new HttpGuard({ ...address, auth }),
  });
  service.programLog = (level, logger, data) => transport.log(level, logger, data);
  let listening;
  try {
    listening = await serve(address.host, address.port, transport.handle, maxBodyBytes);
  } catch (error) {
    process.stderr.write(
      `toolhost: cannot listen on ${address.host}:${address.port}: ${(error as Error).message}\n`,
    );
    process.exit(1);
  }
  const shown = address.host.includes(":") ? `[${address.host}]` : address.host;
  resource ??= `http://${shown}:${listening.port}/mcp`;
  (await sandboxLine)();
  logger.log("info", `serving MCP at http://${shown}:${listening.port}/mcp`);
  if (address.auth) {
    logger.log("info", `OAuth: access tokens of ${address.auth.issuer} for ${resource}`);
  }
  logger.log(
    "debug",
    `also WebSocket (subprotocol mcp) at ws://${shown}:${listening.port}/mcp and the 2024-11-05 ` +
      `HTTP+SSE transport at http://${shown}:${listening.port}/sse`,
  );
  stopping({
    open: () => `${transport.sessions} session(s) open`,
    async close(ms) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise((resolve) => (timer = setTimeout(resolve, ms)));
      await Promise.race([transport.close().then(() => listening.close()), late]);
      clearTimeout(timer);
    },
  });
  return new Promise<never>(() => {});
}

if (import.meta.main) await main(process.argv.slice(2));
