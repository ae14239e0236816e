/**
 * `shell_env: "login"`: commands get the environment of the user's login shell (PATH from
 * ~/.profile, ~/.zshrc and the like) instead of the bare one a GUI client often starts us with.
 * The shell is asked once, on the first command that needs it; a shell that fails or takes too
 * long leaves our own environment in place, with a warning.
 */
import { Buffer } from "node:buffer";
import process from "node:process";
import { RUN_VARIABLE, spawnInGroup, terminateGroup } from "../../_lib/processes/mod.ts";
import type { ToolContext } from "../../../mcp/tool/mod.ts";
import { withTraceEnv } from "../../../mcp/wire/mod.ts";
import { type ConfineContext, type ProcessSandbox, sandboxFor } from "../../_lib/confine/mod.ts";

const TIMEOUT_MS = 10_000;
const MARK = "__toolhost_env_7f3a__";

let loaded: Promise<NodeJS.ProcessEnv> | undefined;

/**
 * The environment the call's commands run with. Rejects with the signal's reason when the call is
 * stopped while the login shell is still being asked: the command must then not start at all.
 */
export function commandEnv(
  ctx: LoginContext & Pick<ToolContext, "trace">,
): Promise<NodeJS.ProcessEnv> {
  return inherited(ctx).then((env) => withTraceEnv(env, ctx.trace));
}

/** What the login shell is asked with: the settings, the sandbox it runs in, a warning's way. */
type LoginContext =
  & Pick<ToolContext, "config" | "serverLog">
  & Omit<ConfineContext, "config">
  & { signal?: AbortSignal };

/** The environment before the call's trace: toolhost's, or the login shell's. */
function inherited(ctx: LoginContext): Promise<NodeJS.ProcessEnv> {
  if (ctx.config.shellEnv !== "login") return Promise.resolve(process.env);
  const signal = ctx.signal;
  loaded ??= sandboxFor(ctx, "command", { network: false }).then(readLoginEnv).catch((error) => {
    const why = (error as Error).message;
    ctx.serverLog("warning", "shell_env", `"login": ${why}; commands keep toolhost's environment`);
    return process.env;
  });
  if (!signal) return loaded;
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const stop = () => reject(signal.reason);
    signal.addEventListener("abort", stop, { once: true });
    loaded!.then((env) => {
      signal.removeEventListener("abort", stop);
      resolve(env);
    });
  });
}

/** Variables that describe the login shell itself (and its run's mark), not the user's setup. */
const SHELL_OWN = new Set(["PWD", "OLDPWD", "SHLVL", "_", RUN_VARIABLE]);

/** `env` output between two marks: NUL-separated where `env -0` exists, else line by line. */
export function parseEnvOutput(output: string): Record<string, string> | undefined {
  const start = output.indexOf(MARK);
  const end = output.lastIndexOf(MARK);
  if (start < 0 || end <= start) return undefined;
  const body = output.slice(start + MARK.length, end);
  const entries = body.includes("\0") ? body.split("\0") : body.split("\n");
  const env: Record<string, string> = {};
  for (const entry of entries) {
    const eq = entry.indexOf("=");
    if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return env;
}

/**
 * The login shell's environment. It runs confined like any command (a profile is the user's, but
 * what it starts is not toolhost's to trust); what the sandbox set for it (TMPDIR, moved caches)
 * is not kept unless the profile changed it, since each call's sandbox sets its own.
 */
function readLoginEnv(sandbox: ProcessSandbox): Promise<NodeJS.ProcessEnv> {
  // Windows has no login shell: the environment a program inherits there is already the user's
  // (PATH, PATHEXT and the rest from the registry), with its names' case as Windows keeps them.
  if (process.platform === "win32") {
    return Promise.reject(new Error("Windows has no login shell to ask"));
  }
  const shell = process.env.SHELL || "/bin/sh";
  const script = `printf '%s' ${MARK}; env -0 2>/dev/null || env; printf '%s' ${MARK}`;
  return new Promise((resolve, reject) => {
    // Interactive too: zsh and bash users often set PATH only in their rc files.
    const child = spawnInGroup(shell, ["-l", "-i", "-c", script], {
      stdio: ["ignore", "pipe", "ignore"],
    }, { confinement: sandbox.confinement });
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (env: NodeJS.ProcessEnv | undefined, why: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      // Whatever the profile left running (an agent, a daemon) goes with the shell.
      if (child.pid) terminateGroup(child.pid, 0, "SIGKILL");
      if (env) resolve(env);
      else reject(new Error(why));
    };
    const parsed = () => {
      const env = parseEnvOutput(Buffer.concat(chunks).toString("utf8"));
      if (!env?.PATH) return undefined;
      for (const name of SHELL_OWN) delete env[name];
      for (const [name, value] of Object.entries(sandbox.policy?.env ?? {})) {
        if (env[name] !== value) continue;
        if (process.env[name] === undefined) delete env[name];
        else env[name] = process.env[name];
      }
      return { ...process.env, ...env };
    };
    // Done at the closing mark: a daemon started by the profile may hold stdout open for ever.
    child.stdout?.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      const env = parsed();
      if (env) finish(env, "");
    });
    const timer = setTimeout(
      () => finish(undefined, `${shell} -l -i did not finish within ${TIMEOUT_MS / 1000} s`),
      TIMEOUT_MS,
    );
    child.once("error", (error) => {
      finish(undefined, `${shell} could not be started: ${error.message}`);
    });
    child.once("exit", () => {
      // Output still in the pipe arrives shortly after the exit.
      setTimeout(() => finish(parsed(), `${shell} -l -i printed no environment`), 250);
    });
  });
}
