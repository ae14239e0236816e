/**
 * Running git for the journal's snapshots: toolhost's own plumbing calls, in an environment where
 * nothing of the user's or the project's configuration can run code or change bytes. The git
 * directory is toolhost's private one (git_shadow.ts: its config and info/attributes are
 * toolhost's), the system and global config files are not read (GIT_CONFIG_NOSYSTEM, a HOME of
 * its own, GIT_CONFIG_GLOBAL), every GIT_* variable of toolhost's environment is dropped, and the
 * only command-line setting is safe.directory (a work tree owned by another user). So no hook,
 * fsmonitor, clean filter, textconv or credential helper exists to be run, and no eol, ident or
 * encoding conversion applies. Output is bounded and every call has a deadline.
 */
import { spawn } from "node:child_process";
import { Buffer } from "node:buffer";
import { delimiter, join } from "node:path";
import process from "node:process";
import { dirsOutside, programOutside } from "../../../_lib/programs_outside.ts";

/** Where one repository's snapshots are made: toolhost's git directory and the work tree. */
export interface GitPlace {
  /** toolhost's private git directory (config, index, objects). */
  gitDir: string;
  /** The work tree: the root. */
  workTree: string;
}

export interface GitCall {
  /** Written to git's stdin, then closed. */
  input?: Uint8Array;
  /** Bytes of stdout kept at most; past them git is stopped and the call fails. */
  maxOutput?: number;
  /** Milliseconds before git is stopped and the call fails. */
  timeoutMs?: number;
}

/** A git call that failed: the message names the command and what git said (bounded). */
export class GitFailed extends Error {}

const DEFAULT_MAX_OUTPUT = 64 << 20;
const DEFAULT_TIMEOUT_MS = 30_000;
/** Characters of git's stderr kept for a failure's message. */
const STDERR_CHARS = 600;

/** The environment of every snapshot git call: toolhost's, without any GIT_* it carried. */
export function gitEnv(place: GitPlace | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !name.startsWith("GIT_")) env[name] = value;
  }
  const home = place ? join(place.gitDir, "home") : join(process.cwd(), ".no-home");
  Object.assign(env, {
    LC_ALL: "C",
    LANG: "C",
    // No ~/.gitconfig, no $XDG_CONFIG_HOME/git/{config,attributes}: a home that does not exist.
    HOME: home,
    XDG_CONFIG_HOME: home,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: process.platform === "win32" ? "NUL" : "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    // The snapshot branch's commits (commit-tree) need a name.
    GIT_AUTHOR_NAME: "toolhost",
    GIT_AUTHOR_EMAIL: "toolhost@localhost",
    GIT_COMMITTER_NAME: "toolhost",
    GIT_COMMITTER_EMAIL: "toolhost@localhost",
  });
  if (place) {
    env.GIT_DIR = place.gitDir;
    env.GIT_WORK_TREE = place.workTree;
  }
  // Nothing git might look up there either (an external command, as gitProgram() finds git).
  if (process.platform !== "win32") env.PATH = dirsOutside(env.PATH, avoided).join(delimiter);
  return env;
}

/** Every root toolhost has observed: commands may write there, so no git is run from there. */
const avoided = new Set<string>();

/**
 * Adds `roots` to the places no git is run from. git runs outside the command sandbox, so a `git`
 * a command wrote in a root that the user's PATH names (an activated `.venv/bin`, direnv's
 * `node_modules/.bin`, or a relative entry such as `node_modules/.bin` or `.`, taken from the work
 * tree) would run with the user's full rights at the next snapshot.
 */
export function avoidProgramsIn(roots: readonly string[]): void {
  for (const root of roots) avoided.add(root);
}

/**
 * git's path: the first on PATH in an absolute directory outside every observed root (its real
 * path too), or undefined. On Windows, where PATHEXT decides, the name is left to the system.
 */
export function gitProgram(): string | undefined {
  if (process.platform === "win32") return "git";
  return programOutside("git", process.env.PATH, avoided);
}

/** Runs `git args` for `place`; its stdout, or GitFailed. */
export function git(
  args: string[],
  place: GitPlace | undefined,
  call: GitCall = {},
): Promise<Buffer> {
  const maxOutput = call.maxOutput ?? DEFAULT_MAX_OUTPUT;
  const program = gitProgram();
  if (!program) {
    return Promise.reject(
      new GitFailed(`git ${args[0]} could not start: no git on PATH outside the roots`),
    );
  }
  return new Promise((resolve, reject) => {
    const child = spawn(program, ["-c", "safe.directory=*", ...args], {
      cwd: place?.workTree,
      env: gitEnv(place),
      stdio: ["pipe", "pipe", "pipe"],
      windowsHide: true,
    });
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = "";
    let failure: string | undefined;
    const stop = (why: string) => {
      failure ??= why;
      child.kill("SIGKILL");
    };
    const timer = setTimeout(
      () => stop(`took longer than ${call.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms`),
      call.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    );
    child.stdout.on("data", (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > maxOutput) stop(`printed more than ${maxOutput} bytes`);
      else out.push(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      if (err.length < STDERR_CHARS) err += chunk.toString("utf8");
    });
    child.stdin.on("error", () => {}); // git may exit before reading all of it
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(new GitFailed(`git ${args[0]} could not start: ${error.message}`));
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      if (failure === undefined && code === 0) return resolve(Buffer.concat(out, outBytes));
      const said = err.trim().slice(0, STDERR_CHARS).replace(/\s+/g, " ");
      reject(
        new GitFailed(
          `git ${args[0]} ${failure ?? `failed (exit ${code})`}${said ? `: ${said}` : ""}`,
        ),
      );
    });
    child.stdin.end(call.input);
  });
}

/** NUL-separated fields of git's `-z` output, as strings (a trailing empty field dropped). */
export function zFields(output: Buffer): string[] {
  if (output.length === 0) return [];
  const fields = output.toString("utf8").split("\0");
  if (fields[fields.length - 1] === "") fields.pop();
  return fields;
}

let version: Promise<number[] | undefined> | undefined;

/** git's version as numbers, or undefined when git cannot be run here (asked once). */
export function gitVersion(): Promise<number[] | undefined> {
  version ??= git(["--version"], undefined, { timeoutMs: 10_000 }).then(
    (out) => /(\d+)\.(\d+)\.(\d+)/.exec(out.toString())?.slice(1).map(Number),
    () => undefined,
  );
  return version;
}
