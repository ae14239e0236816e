/**
 * A libstdc++.so.6 for musl, so that the linux-x64-musl binary can run here. bun's musl
 * runtime links libstdc++ dynamically (on Alpine: `apk add libstdc++`); Debian packages musl
 * itself but no libstdc++ built for it. This links Debian's libstdc++ objects
 * (libstdc++-N-pic) against musl's libc, with musl_glibc_shim.c for the few glibc-only symbols.
 * Needs Debian's musl and libstdc++-N-pic packages and gcc, on x86_64; otherwise it says why not.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { ROOT } from "./raw_client.ts";

export const MUSL_LOADER = "/lib/ld-musl-x86_64.so.1";
const MUSL_LIBC = ["/lib/x86_64-linux-musl/libc.so", "/usr/lib/x86_64-linux-musl/libc.so"];

function gccFile(name: string): string | undefined {
  try {
    const path = execFileSync("gcc", [`-print-file-name=${name}`], { encoding: "utf8" }).trim();
    return path.startsWith("/") && existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

/** The directory holding libstdc++.so.6 for musl (for LD_LIBRARY_PATH), or why there is none. */
export function muslLibstdcxx(): { dir: string } | { missing: string } {
  if (process.arch !== "x64") return { missing: "the musl test runs on x86_64 hosts only" };
  if (!existsSync(MUSL_LOADER)) {
    return { missing: `musl's loader ${MUSL_LOADER} is missing (apt-get install musl)` };
  }
  const libc = MUSL_LIBC.find((path) => existsSync(path));
  const parts = ["crtbeginS.o", "crtendS.o", "libgcc_eh.a", "libgcc.a", "libstdc++_pic.a"]
    .map((name) => [name, gccFile(name)] as const);
  const absent = parts.filter(([, path]) => !path).map(([name]) => name);
  if (!libc || absent.length > 0) {
    return {
      missing: `building libstdc++ for musl needs gcc and libstdc++-N-pic (missing: ${
        [...(libc ? [] : ["musl's libc.so"]), ...absent].join(", ")
      })`,
    };
  }
  const [crtbegin, crtend, gccEh, gcc, stdcxx] = parts.map(([, path]) => path!);
  const dir = mkdtempSync(join(tmpdir(), "toolhost-musl-"));
  const shim = join(dir, "shim.o");
  try {
    execFileSync("gcc", [
      "-O2",
      "-fPIC",
      "-c",
      `${ROOT}tests/helpers/musl_glibc_shim.c`,
      "-o",
      shim,
    ]);
    execFileSync("gcc", [
      "-shared",
      "-nostdlib",
      "-o",
      join(dir, "libstdc++.so.6"),
      "-Wl,-soname,libstdc++.so.6",
      crtbegin,
      shim,
      "-Wl,--whole-archive",
      stdcxx,
      "-Wl,--no-whole-archive",
      libc,
      gccEh,
      gcc,
      crtend,
    ], { stdio: ["ignore", "ignore", "pipe"] });
  } catch (error) {
    return { missing: `linking libstdc++ for musl failed: ${(error as Error).message}` };
  }
  return { dir };
}
