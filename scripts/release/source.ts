/**
 * What a build is made from: the version (package.json's, the one source) and the commit that
 * `toolhost --version` reports; scripts/build.ts and the release both take them from here.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import process from "node:process";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

function git(...args: string[]): string {
  try {
    return execFileSync("git", args, {
      cwd: ROOT,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  } catch {
    return "";
  }
}

export function version(): string {
  return JSON.parse(readFileSync(`${ROOT}package.json`, "utf8")).version;
}

/** `abcdef123456`, `abcdef123456+changes` for a work tree that differs, or `unknown`. */
export function commit(): string {
  const head = git("rev-parse", "--short=12", "HEAD") || "unknown";
  return git("status", "--porcelain") ? `${head}+changes` : head;
}

/**
 * The time stamped on every archived file: SOURCE_DATE_EPOCH when set (the reproducible-builds
 * convention), else the commit's time, so that the same commit gives the same archives.
 */
export function sourceDate(): number {
  const fromEnv = Number(process.env.SOURCE_DATE_EPOCH);
  if (Number.isInteger(fromEnv) && fromEnv > 0) return fromEnv;
  return Number(git("log", "-1", "--format=%ct")) || 0;
}
