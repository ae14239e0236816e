/**
 * The sandbox of one process (or one call's processes): the policy for its kind, the mechanism
 * this machine offers, and the wrapper spawnInGroup applies, which turns a launch into
 * toolhost-confine's (Linux) or sandbox-exec's (macOS), with the environment it needs.
 */
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import process from "node:process";
import { secretVariables } from "../../../config/secrets.ts";
import type { Settings } from "../../../config/settings.ts";
import { type SessionMemory, ToolError } from "../../../mcp/tool/mod.ts";
import type { Confinement, Launch } from "../processes/mod.ts";
import { gitProtection } from "./_git.ts";
import { linuxArguments, type WrapNotes } from "./_linux.ts";
import { type Mechanism, mechanism } from "./_mechanism.ts";
import {
  confinedMode,
  type Policy,
  policyFor,
  type ProcessKind,
  realRoots,
  within,
} from "./_policy.ts";
import { explainRefusals } from "./_refusals.ts";
import { type NetworkContext, networkForCall } from "./_network.ts";
import { networkRules } from "./_proxy_rules.ts";
import { seatbeltArguments, seatbeltProfile } from "./_seatbelt.ts";
import { serverTempDir, SESSION_TEMP } from "./_temp.ts";

export interface SandboxOptions {
  /** What the process is, for a question to the person about a host (the command, bounded). */
  what?: string;
  /** false: no network whatever the settings (the login shell asked for its environment). */
  network?: boolean;
}

/** What the sandbox needs of a call (a ToolContext has it all). */
export interface ConfineContext {
  readonly config: Readonly<Settings>;
  roots(): Promise<string[]>;
  readonly state: { readonly dir: string };
  /** The session whose temporary directory commands use; language servers have their own. */
  readonly session?: SessionMemory;
}

/** A command's call: it may reach the network through the session's proxy, which may ask the person. */
export type CommandContext = ConfineContext & NetworkContext;

export interface ProcessSandbox {
  /** For spawnInGroup: the wrapper, or why the process runs unconfined. */
  readonly confinement: Confinement;
  /** The policy in force; undefined when nothing confines the process. */
  readonly policy?: Policy;
  /**
   * The line a result starts with: that nothing confines the process, or that the session's
   * network had to be made again.
   */
  readonly header?: string;
  /** Lines for after the output: what the sandbox refused, and the setting that would allow it. */
  explain(output: string, cwd: string): string[];
  /**
   * Why the process never started, read from what the helper said before exec: an error with
   * the errno's code (ENOENT, EACCES: as a failed spawn), or one whose code is ESANDBOX when the
   * sandbox itself could not be set up. Undefined when it started.
   */
  failedStart(output: string, exitCode: number | null): NodeJS.ErrnoException | undefined;
}

const ERRNO_CODES: Record<string, string> = {
  "2": "ENOENT",
  "7": "E2BIG",
  "8": "ENOEXEC",
  "13": "EACCES",
  "20": "ENOTDIR",
  "21": "EISDIR",
  "40": "ELOOP",
};

/** The helper's last words before it could exec (confine.c), as an error; see failedStart. */
export function helperFailure(
  output: string,
  exitCode: number | null,
): NodeJS.ErrnoException | undefined {
  if (exitCode === null || exitCode < 125 || exitCode > 127) return undefined;
  if (!output.startsWith("toolhost-confine: ")) return undefined;
  const end = output.indexOf("\n");
  const line = (end < 0 ? output : output.slice(0, end)).slice(0, 2000);
  const exec = /^toolhost-confine: cannot run .* \(errno (\d+)\): (.*)$/.exec(line);
  const error: NodeJS.ErrnoException = new Error(exec ? exec[2] : line.slice(18));
  error.code = exec ? ERRNO_CODES[exec[1]] ?? `errno ${exec[1]}` : "ESANDBOX";
  return error;
}

/** Agents' sockets and addresses: of no use inside, and a way out if one were reachable. */
const REMOVED_VARIABLES = ["SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO"];

/**
 * The network of a process: the helper's `-n`, its environment, what the proxy refused it, a
 * line for the result when the session's network had to be made again, and its end (when the
 * process exits; a background command's outlives its call).
 */
interface Network {
  arg: string;
  env(base: Record<string, string | undefined>): Record<string, string | undefined>;
  /** `sandbox: refused network to example.com:443 (sandbox.allow_network)` lines. */
  refusals(): string[];
  notice?: string;
  end(): void;
}

/**
 * No network. A command gets a namespace of its own with only loopback (a project's tests may
 * talk to themselves); a search or a language server no socket but AF_UNIX, which costs nothing,
 * where a new network namespace costs about 0.8 ms a spawn.
 */
const noNetwork = (mech: Mechanism, kind: ProcessKind): Network => ({
  arg: mech.kind === "namespaces" && kind === "command" ? "none" : "deny",
  env: (base) => base,
  refusals: () => [],
  end: () => {},
});

/**
 * A command's network: the session's (tools/_lib/confine/_network.ts), reached through its
 * holder's namespace (or the proxy's TCP port where namespaces are refused, when Landlock can
 * confine TCP to it), or none where neither can be had. `"*"` in `sandbox.allow_network` keeps
 * the machine's network.
 */
async function networkOf(
  ctx: CommandContext,
  mech: Mechanism,
  what: string | undefined,
): Promise<Network> {
  if (mech.kind === "unavailable") return noNetwork(mech, "command");
  // Without namespaces the proxy's port is confined by Landlock's TCP rules (ABI 4).
  if (mech.kind === "landlock" && mech.landlock < 4) return noNetwork(mech, "command");
  const helper = mech.kind === "seatbelt" ? undefined : mech.helper;
  if (!helper && !networkRules(ctx.config.sandbox.allowNetwork).all) {
    // Seatbelt has no holder to join: the proxy on TCP 127.0.0.1 is its way out.
    return noNetwork(mech, "command");
  }
  const network = await networkForCall(ctx, {
    helper: helper ?? "",
    namespaces: mech.kind === "namespaces",
    userConfigFile: ctx.config.configFiles[0],
  }, what);
  return {
    arg: network.helperArgument,
    env: (base) => network.env(base),
    refusals: () => network.refusals().map((refusal) => refusal.line),
    notice: network.notice,
    end: () => network.end(),
  };
}

/** `path` with its links resolved, when it exists. */
function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The policy with every path real, for Seatbelt. */
function canonical(policy: Policy): Policy {
  return {
    ...policy,
    writable: policy.writable.map(real),
    writableFiles: policy.writableFiles.map(real),
    readOnly: policy.readOnly.map((entry) => ({ ...entry, path: real(entry.path) })),
    pinned: policy.pinned.map(real),
    hidden: policy.hidden.map((entry) => ({ ...entry, path: real(entry.path) })),
  };
}

function unconfined(reason: string, header: string | undefined): ProcessSandbox {
  return {
    confinement: { unconfined: reason },
    header,
    explain: () => [],
    failedStart: () => undefined,
  };
}

/**
 * The sandbox for processes of `kind` started for this call. Throws a ToolError when
 * `sandbox.required` is set and there is none to be had (a search then runs unconfined: it only
 * reads, and grep has its own search to fall back on).
 */
export function sandboxFor(
  ctx: CommandContext,
  kind: "command",
  options?: SandboxOptions,
): Promise<ProcessSandbox>;
export function sandboxFor(
  ctx: ConfineContext,
  kind: "command",
  options: SandboxOptions & { network: false },
): Promise<ProcessSandbox>;
export function sandboxFor(
  ctx: ConfineContext,
  kind: Exclude<ProcessKind, "command">,
  options?: SandboxOptions,
): Promise<ProcessSandbox>;
export async function sandboxFor(
  ctx: ConfineContext | CommandContext,
  kind: ProcessKind,
  options: SandboxOptions = {},
): Promise<ProcessSandbox> {
  const settings = ctx.config;
  const mode = confinedMode(settings);
  const required = settings.sandbox.required && kind !== "search";
  if (mode === "off") {
    if (required) {
      throw new ToolError(
        "not started: sandbox.required is true but sandbox.mode is off; set one of them otherwise",
      );
    }
    return unconfined(
      "sandbox.mode is off",
      "[sandbox off (sandbox.mode): this ran with your full rights]",
    );
  }
  const mech = await mechanism(ctx.state.dir);
  if (mech.kind === "unavailable") {
    if (required) {
      throw new ToolError(`not started: sandbox.required is true, and ${mech.reason}`);
    }
    return unconfined(
      mech.reason,
      `[no sandbox: ${mech.reason}; this ran with your full rights]`,
    );
  }
  const home = homedir();
  let temp: string | undefined;
  try {
    temp = kind === "command"
      ? (ctx.session ? ctx.session.get(SESSION_TEMP) : serverTempDir())
      : kind === "language-server"
      ? serverTempDir()
      : undefined;
  } catch (error) {
    throw new ToolError(
      `not started: its private temporary directory could not be made: ${(error as Error).message}`,
    );
  }
  const policy = policyFor({
    kind,
    settings,
    roots: realRoots(await ctx.roots()),
    home,
    env: process.env,
    uid: process.getuid?.() ?? 0,
    stateDir: ctx.state.dir,
    temp,
  });
  const network = kind === "command" && options.network !== false
    ? await networkOf(ctx as CommandContext, mech, options.what)
    : noNetwork(mech, kind);
  const notes: WrapNotes = { notes: [], git: { readOnly: [], pinned: [] } };
  const wrap = (launch: Launch): Launch => {
    const env = network.env({ ...launch.env, ...policy.env });
    for (const name of [...REMOVED_VARIABLES, ...secretVariables()]) delete env[name];
    if (mech.kind === "seatbelt") {
      const isWritable = (path: string) => policy.writable.some((place) => within(path, place));
      const git = gitProtection(policy.roots.filter(isWritable), isWritable);
      notes.notes = git.notes;
      notes.git = git;
      // Seatbelt matches the paths the kernel resolved (/tmp is /private/tmp): real ones.
      // The network as the helper's -n says it: the proxy's port on localhost, all, or none.
      const proxy = /^proxy:(\d+)$/.exec(network.arg);
      const reach = {
        proxyPort: proxy ? Number(proxy[1]) : undefined,
        allNetwork: network.arg === "host",
      };
      const profile = seatbeltProfile(canonical(policy), reach, {
        writable: git.writable.map(real),
        readOnly: git.readOnly.map((entry) => real(entry.path)),
        pinned: git.pinned.map(real),
      });
      const args = seatbeltArguments(profile, launch.file, launch.args);
      return { file: mech.sandboxExec, args, env };
    }
    const args = linuxArguments(
      policy,
      {
        landlockOnly: mech.kind === "landlock",
        network: network.arg,
        keep: launch.keep ?? [],
        argv0: launch.argv0,
        ownGroup: launch.ownGroup,
      },
      launch.file,
      launch.args,
      notes,
    );
    return { file: mech.helper, args, env, ownGroup: launch.ownGroup };
  };
  return {
    confinement: { wrap, started: (child) => child.once("exit", () => network.end()) },
    policy,
    header: network.notice,
    explain: (output, cwd) => [
      ...notes.notes.map((note) => `sandbox: ${note}`),
      ...explainRefusals(output, policy, cwd, home, notes.git),
      ...network.refusals(),
    ],
    failedStart: helperFailure,
  };
}
