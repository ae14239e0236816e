/**
 * Where the pinned toolchain and the built binaries are, on any platform. On Windows npm makes
 * `node_modules/.bin/bun` a shell script (beside `.cmd` and `.ps1` shims), which no process can
 * spawn directly, and `bun build --compile` writes `dist/toolhost.exe`: so scripts and tests
 * spawn the real executables named here, never the `.bin` shims.
 */
import { existsSync } from "node:fs";
import process from "node:process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const WINDOWS = process.platform === "win32";

/** What an executable's name ends with on this platform. */
export const EXE = WINDOWS ? ".exe" : "";

/** The bun the bun package installs: its file is `bin/bun.exe` on every platform. */
export const BUN = `${ROOT}node_modules/bun/bin/bun.exe`;

/**
 * The deno the deno package installs (`node_modules/deno/deno`, `deno.exe` on Windows, where
 * it may stay in its platform package when it could not be linked), else the deno running this.
 */
export const DENO = [
  `${ROOT}node_modules/deno/deno${EXE}`,
  `${ROOT}node_modules/@deno/win32-x64/deno.exe`,
  `${ROOT}node_modules/@deno/win32-arm64/deno.exe`,
].find((path) => (WINDOWS || !path.includes("@deno/win32")) && existsSync(path)) ??
  process.execPath;

/** A binary that scripts/build.ts makes, by its name without extension: `dist/toolhost`. */
export function distBinary(name: string): string {
  return `${ROOT}dist/${name}${EXE}`;
}
