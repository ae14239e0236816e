/**
 * Running a custom tool's program: where it is found, the directory it runs in, and the run
 * itself in its own process group, shaped like `bash`'s result.
 */
import { type ChildProcess, type StdioOptions } from "node:child_process";
import { accessSync, constants, mkdtempSync, rmSync, statSync } from "node:fs";
import { stat } from "node:fs/promises";
import { connect, createServer, type Socket } from "node:net";
import { homedir, tmpdir } from "node:os";
import { delimiter, isAbsolute, join, resolve, win32 } from "node:path";
import type { Readable } from "node:stream";
import { type ToolContext, ToolError } from "../../../mcp/tool/mod.ts";
import { spawnInGroup } from "../../_lib/processes/mod.ts";
import { runOwner } from "./session_runs.ts";
import { sandboxFor } from "../../_lib/confine/mod.ts";
import { bounded } from "../../../config/quote.ts";
import { supervise } from "./supervise.ts";
import { whichWindows } from "./windows_shell.ts";

/** How long setting up the shared output socket may take before plain pipes are used. */
const SOCKET_SETUP_MS = 1_000;

export function expandHome(path: string): string {
  return path === "~" || path.startsWith("~/") ? join(homedir(), path.slice(1)) : path;
}

export async function checkDirectory(path: string): Promise<void> {
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
export function findProgram(
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

/**
 * Windows: the program as Windows finds it, PATHEXT's extensions tried (`node` is `node.exe`),
 * `\` or `/` naming a directory (relative to `base`), PATH looked up whatever its case.
 */
export function findWindowsProgram(
  name: string,
  base: string,
  env: Record<string, string | undefined>,
  cwd: string,
): string {
  const withDirectory = /[\\/]/.test(name);
  const found = whichWindows(
    withDirectory ? win32.resolve(base, name) : name,
    env,
    (file) => statOrNull(file)?.isFile() === true,
  );
  if (found) return found;
  throw new ToolError(
    `cannot run ${JSON.stringify(name)}: ${
      withDirectory ? "no such file" : "no program of that name on PATH (with PATHEXT)"
    } (cwd ${cwd}); install it, or give its full path as command[0] in the config`,
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
export async function runProgram(
  file: string,
  program: string,
  argv: string[],
  options: RunOptions,
  ctx: ToolContext,
) {
  if (ctx.signal.aborted) throw new ToolError("not started: the call was stopped first");
  const sandbox = await sandboxFor(ctx, "command", {
    what: bounded([program, ...argv].join(" "), 300),
  });
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
      }, { confinement: sandbox.confinement, owner: runOwner(ctx) });
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
    sandbox,
    cwd: options.cwd,
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
