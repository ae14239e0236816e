/**
 * The sandbox's C helper (toolhost-confine) built from tools/_lib/confine/linux/*.c for tests, once
 * per version of its sources, into a directory every user may read (tests run it as uid 65534
 * too). Undefined, with the reason, when there is no C compiler or not Linux.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const SOURCES = fileURLToPath(new URL("../../tools/_lib/confine/linux/", import.meta.url));

export type Built = { path: string } | { skip: string };

let built: Built | undefined;

export function confineHelper(): Built {
  return built ??= build();
}

function build(): Built {
  if (process.platform !== "linux") return { skip: "the helper is Linux's" };
  const files = readdirSync(SOURCES).filter((name) => /\.[ch]$/.test(name)).sort();
  const hash = createHash("sha256");
  for (const name of files) hash.update(name).update(readFileSync(join(SOURCES, name)));
  const dir = join(tmpdir(), `toolhost-confine-test-${hash.digest("hex").slice(0, 12)}`);
  const path = join(dir, "toolhost-confine");
  if (existsSync(path)) return { path };
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  chmodSync(dir, 0o755);
  const partial = `${path}.${process.pid}`;
  const sources = files.filter((name) => name.endsWith(".c")).map((name) => join(SOURCES, name));
  // musl makes it small; glibc's gcc has the kernel headers musl's may lack.
  const tried: string[] = [];
  for (const compiler of ["musl-gcc", "gcc", "cc"]) {
    const made = spawnSync(compiler, ["-Os", "-static", "-o", partial, ...sources], {
      encoding: "utf8",
    });
    if (made.status === 0) break;
    tried.push(`${compiler}: ${made.error?.message ?? made.stderr.split("\n")[0]}`);
  }
  if (!existsSync(partial)) {
    return { skip: `toolhost-confine could not be built (${tried.join("; ")})` };
  }
  chmodSync(partial, 0o755);
  renameSync(partial, path);
  return { path };
}

/** What the kernel offers, as the helper's probe says (`landlock=7 userns=1 netns=1`). */
export function probe(helper: string): Record<string, number> {
  const line = execFileSync(helper, ["probe"], { encoding: "utf8" });
  return Object.fromEntries(
    line.trim().split(" ").map((pair) => pair.split("=")).map((
      [key, value],
    ) => [key, Number(value)]),
  );
}

/** The helper for the network's tests, and why they skip: no helper, or no network namespaces. */
export function networkHelper(): { helper: string; skip: string | false } {
  const built = confineHelper();
  if ("skip" in built) return { helper: "", skip: built.skip };
  const skip = probe(built.path).netns !== 1
    ? "this machine refuses unprivileged network namespaces"
    : false;
  return { helper: built.path, skip };
}
