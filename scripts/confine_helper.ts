/**
 * Builds toolhost-confine, the command sandbox's Linux helper (tools/_lib/confine/linux/*.c), as
 * a small static program: with musl-gcc (Debian's musl-tools) when it is there for the machine's
 * own architecture, else the C compiler with glibc (larger, as fast), and for the other
 * architecture the cross compiler (aarch64-linux-gnu-gcc from gcc-aarch64-linux-gnu). A static
 * binary runs on glibc and musl systems alike, so one serves both Linux targets of a CPU.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SOURCES = join(ROOT, "tools/_lib/confine/linux");

/** Smallest: optimised for size, unused code dropped, no unwind tables, stripped. */
const FLAGS = [
  "-Os",
  "-static",
  "-s",
  "-ffunction-sections",
  "-fdata-sections",
  "-Wl,--gc-sections",
  "-fno-asynchronous-unwind-tables",
  "-fno-unwind-tables",
  "-Wall",
  "-Wextra",
  "-Werror",
];

function found(command: string): boolean {
  try {
    execFileSync(command, ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** The compilers that can build for `cpu` here, the best first. */
function compilers(cpu: "x64" | "arm64"): string[] {
  const native = (process.arch === "x64" ? "x64" : process.arch === "arm64" ? "arm64" : "") === cpu;
  const cross = cpu === "arm64" ? "aarch64-linux-gnu-gcc" : "x86_64-linux-gnu-gcc";
  return native ? ["musl-gcc", "cc", "gcc", cross] : [cross];
}

/**
 * Builds the helper for `cpu` into `outfile`; returns its size, or a sentence saying why it could
 * not (no compiler for it here), in which case the binary is built without it and its sandbox
 * says it is unavailable.
 */
export function buildConfineHelper(cpu: "x64" | "arm64", outfile: string): number | string {
  const compiler = compilers(cpu).find(found);
  if (!compiler) {
    return `no C compiler for linux-${cpu} (${compilers(cpu).join(", ")}); install musl-tools ` +
      "or gcc (gcc-aarch64-linux-gnu for arm64)";
  }
  const sources = readdirSync(SOURCES).filter((name) => name.endsWith(".c")).map((name) =>
    join(SOURCES, name)
  );
  mkdirSync(dirname(outfile), { recursive: true });
  execFileSync(compiler, [...FLAGS, "-o", outfile, ...sources], {
    stdio: ["ignore", "inherit", "inherit"],
  });
  return statSync(outfile).size;
}
