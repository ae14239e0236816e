/**
 * toolhost: an MCP server over stdio. This file is the command line: flags, wiring, signals and
 * the orderly exit. It is the only place that calls process.exit.
 */
import { randomBytes } from "node:crypto";
import { spawn } from "node:child_process";
import { realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, parse } from "node:path";
import { fileURLToPath } from "node:url";
import process from "node:process";
import { type Flags, forwardedFlags, parseCommandLine } from "./config/flags.ts";
import { helpText } from "./config/help.ts";
import { ConfigError, loadConfig, type LoadedConfig } from "./config/load.ts";
import { type Launch, mcpJson, profileHint } from "./config/mcp_json.ts";
import { stateDirectory } from "./config/paths.ts";
import { formatConfig } from "./config/print.ts";
import { defaultSettings, type ToolProfile } from "./config/settings.ts";
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
import { appOnly } from "./mcp/tool/mod.ts";
import { isLoopbackHost } from "./mcp/http/guard.ts";
import { authPlan } from "./mcp/http/auth_settings.ts";
import type { HttpPlan } from "./mcp/http/run.ts";
import { serveStdio, StdoutWriter } from "./mcp/stdio/mod.ts";
import { enableWatchdog, killAllGroups } from "./tools/_lib/processes/mod.ts";
import { establishRoots } from "./tools/_lib/sandbox/mod.ts";
import { assemble, type Assembled } from "./tools/_catalog/assemble.ts";
import { withConfigProblem } from "./tools/_catalog/config_problem.ts";
import { SERVER_ICON } from "./tools/_catalog/icons.ts";
import { serverInstructions } from "./tools/_catalog/instructions.ts";
import { PROFILES } from "./tools/_catalog/profiles.ts";
import { reviewSettings } from "./tools/_catalog/review_offer.ts";
import { sandboxStatus, startLine, statusLines } from "./tools/_lib/confine/mod.ts";

declare const TOOLHOST_COMMIT: string | undefined;
/** Defined by scripts/build.ts: present only in a compiled binary. */
const COMPILED = typeof TOOLHOST_COMMIT === "string";
const COMMIT = COMPILED ? TOOLHOST_COMMIT : "unknown (run from source)";

export interface MainOptions {
  /** Added to what tools/ offers (test fixtures compiled into a test binary only). */
  extra?: Contribution[];
}

/** Where a broken configuration is reported: stderr and exit 2, or (`servedAnyway`) a list. */
type Problems = { servedAnyway: false } | { servedAnyway: true; reports: string[] };

/** Reports `report` as `problems` says: a list to serve, else stderr and exit 2. */
function problem(problems: Problems, report: string): void {
  if (problems.servedAnyway) problems.reports.push(report);
  else configError(report);
}

/** The settings from every source; a broken configuration is reported (problem()). */
function loadSettings(flags: Flags, problems: Problems): LoadedConfig {
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
    problem(problems, error.message);
    // Served anyway: what the client asked for on the command line, else the defaults.
    const settings = defaultSettings();
    if (PROFILES.includes(flags.profile as ToolProfile)) {
      settings.toolsProfile = flags.profile as ToolProfile;
    }
    return { settings, origins: new Map(), places: new Map(), files: [], warnings: [] };
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

/** Where --http listens, and how; exits 2 when the address cannot be used safely. */
function httpAddress(flags: Flags, loaded: LoadedConfig): HttpPlan {
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
  const origins = [...loaded.settings.http.origins, ...flags["http-origin"] ?? []];
  return { host, port, token: token || undefined, origins, auth };
}

function usageError(message: string): never {
  process.stderr.write(`toolhost: ${message}\nRun toolhost --help for the options.\n`);
  process.exit(2);
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
  const line = parseCommandLine(argv);
  if (typeof line === "string") usageError(line);
  const { review, flags } = line;
  if (flags.help) {
    process.stdout.write(helpText(pkg.version, SUPPORTED_VERSIONS, LOG_LEVELS));
    process.exit(0);
  }
  if (flags.version) {
    process.stdout.write(`toolhost ${pkg.version} (commit ${COMMIT})\n`);
    process.exit(0);
  }
  // A client that starts a server which exits shows only that it closed: over stdio a broken
  // configuration is served instead, as an error in every tool result and the instructions.
  // A person runs the rest in a terminal, where the report on stderr is seen.
  const problems: Problems = !review && flags.http === undefined && !flags["print-config"] &&
      !flags["list-tools"] && !flags["mcp-json"]
    ? { servedAnyway: true, reports: [] }
    : { servedAnyway: false };
  const loaded = loadSettings(flags, problems);
  const settings = review ? reviewSettings(loaded.settings) : loaded.settings;
  const { places } = loaded;
  if (flags["mcp-json"]) {
    const forwarded = forwardedFlags(argv);
    process.stdout.write(mcpJson(launch(viaNpm), forwarded));
    const hint = profileHint(forwarded);
    if (hint) process.stderr.write(hint);
    process.exit(0);
  }
  const http = review
    ? reviewAddress(flags)
    : flags.http !== undefined
    ? httpAddress(flags, loaded)
    : undefined;
  const maxLineMb = settings.limits.maxLineMb;
  const logLevel = settings.logLevel as LogLevel;
  const roots = settings.roots.filter((dir) => {
    if (statSync(dir, { throwIfNoEntry: false })?.isDirectory()) return true;
    problem(problems, `${places.get("roots")}: root ${dir} is not an existing directory`);
  });
  // Each root is looked up by name now, once, and held open: a later rename cannot redirect it.
  const fallback = tooWideToGuess(process.cwd()) ? [] : [process.cwd()];
  if (review && roots.length === 0 && fallback.length === 0) {
    usageError(`${process.cwd()} is no project: name one with toolhost review --root DIR`);
  }
  await establishRoots(roots.length > 0 ? roots : fallback);

  let assembled: Assembled | undefined;
  try {
    assembled = await assemble(settings, options.extra);
  } catch (error) {
    // Custom tools are checked when built: say which file or variable declared the bad one.
    const message = (error as Error).message;
    const name = message.match(/^custom(?: tool |_tools\.)"?([^":]+)"?/)?.[1];
    const place = name ? places.get(`custom_tools.${name}`) : undefined;
    problem(problems, place ? `${place}: ${message}` : message);
  }
  const report = problems.servedAnyway && problems.reports.length
    ? problems.reports.join("\n")
    : undefined;
  if (report) {
    process.stderr.write(`toolhost: the configuration has problems:\n${report}\n`);
    const plain = { ...defaultSettings(), toolsProfile: settings.toolsProfile };
    assembled = withConfigProblem(await assemble(plain, options.extra), report);
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
  const { tools, warnings, removed, shutdownHooks, ...contributions } = assembled!;
  if (flags["list-tools"]) {
    // What a model may be offered: a tool only an app calls is no model's.
    const listed = tools.filter((t) => !appOnly(t.ui));
    const width = Math.max(...listed.map((t) => t.name.length));
    const lines = listed.map((t) =>
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
    instructions: serverInstructions(tools, report),
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
  if (http) {
    // Loaded here: a stdio server, the common case, never needs the HTTP code.
    const { runHttp } = await import("./mcp/http/run.ts");
    const running = await runHttp(service, http, maxBytes, async () => (await sandboxLine)())
      .catch((error) => {
        process.stderr.write(
          `toolhost: cannot listen on ${http.host}:${http.port}: ${(error as Error).message}\n`,
        );
        process.exit(1);
      });
    stopping(running);
    if (review) showReviewPage(running.pages, http.token!, flags.open === true);
    return new Promise<never>(() => {});
  }
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

/** toolhost review: loopback, a port of the user's or a free one, a token of its own. */
function reviewAddress(flags: Flags): HttpPlan {
  const token = randomBytes(24).toString("base64url");
  return { host: "127.0.0.1", port: Number(flags.port ?? 0), token, origins: [] };
}

/**
 * The review page's address on stdout, its token in the fragment (which a browser sends to no
 * server and no Referer carries; the page keeps it in the tab), and opened when asked.
 */
function showReviewPage(pages: Map<string, string>, token: string, open: boolean): void {
  const page = pages.get("ui://toolhost/review");
  if (!page) {
    process.stderr.write("toolhost: the review app is off here (journal.enabled is false)\n");
    process.exit(2);
  }
  const url = `${page}#token=${token}`;
  process.stdout.write(`Review toolhost's changes in this project at:\n  ${url}\nCtrl-C stops.\n`);
  if (!open) return;
  const [command, args] = process.platform === "darwin"
    ? ["open", [url]]
    : process.platform === "win32"
    ? ["cmd", ["/d", "/c", "start", '""', url.replaceAll("&", "^&")]]
    : ["xdg-open", [url]];
  // A failure to open is said; the address above still works.
  spawn(command, args, { stdio: "ignore", detached: true }).on("error", (error) => {
    process.stderr.write(
      `toolhost: could not open a browser (${error.message}); open the address above\n`,
    );
  }).unref();
}

if (import.meta.main) await main(process.argv.slice(2));
