/**
 * The Rust toolchain of the user's own choosing, for a server that must run no program of the
 * project (read-only). rustup's proxies (`rust-analyzer`, `cargo`, `rustc`) follow a project's
 * `rust-toolchain.toml`, whose `path` may name a directory of the project: its `bin/cargo` would
 * then run as if it were cargo. RUSTUP_TOOLCHAIN outranks that file, so it names what rustup's own
 * settings say for the project (an override the user set for its directory, else the default).
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { isWithin } from "../../../_lib/sandbox/mod.ts";

/** Named when rustup's settings give none: rustup then refuses to run rather than follow the file. */
export const NO_TOOLCHAIN = "none-outside-the-project";

/**
 * RUSTUP_TOOLCHAIN for a server working in `project`: the user's own, or NO_TOOLCHAIN.
 *
 * @example
 * ```ts
 * const env = { RUSTUP_TOOLCHAIN: userRustToolchain("/work/app") }; // "stable-x86_64-…"
 * ```
 */
export function userRustToolchain(project: string): string {
  const given = process.env.RUSTUP_TOOLCHAIN;
  if (given) return given;
  const home = process.env.RUSTUP_HOME || join(homedir(), ".rustup");
  let text: string;
  try {
    text = readFileSync(join(home, "settings.toml"), "utf8");
  } catch {
    return NO_TOOLCHAIN;
  }
  let section = "";
  let fallback: string | undefined;
  let override: { dir: string; name: string } | undefined;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    const header = line.match(/^\[([^\]]*)\]$/);
    if (header) {
      section = header[1];
      continue;
    }
    const pair = line.match(/^("(?:[^"\\]|\\.)*"|[A-Za-z0-9_-]+)\s*=\s*"((?:[^"\\]|\\.)*)"$/);
    if (!pair) continue;
    const key = pair[1].startsWith('"') ? JSON.parse(pair[1]) as string : pair[1];
    const value = JSON.parse(`"${pair[2]}"`) as string;
    if (section === "" && key === "default_toolchain") fallback = value;
    if (section === "overrides" && isWithin(key, project)) {
      if (!override || key.length > override.dir.length) override = { dir: key, name: value };
    }
  }
  return override?.name ?? fallback ?? NO_TOOLCHAIN;
}
