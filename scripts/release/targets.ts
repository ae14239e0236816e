/**
 * The platforms a release is built for: how bun names each target, which npm package carries
 * the bun runtime the executable is made from, and what npm and the launcher call the platform.
 */

export interface Target {
  /** The release's name for the platform: archive `toolhost-<name>`, npm `@toolhost/<name>`. */
  name: string;
  /** `bun build --compile --target=…` */
  bunTarget: string;
  /** The npm package whose `bin/bun[.exe]` is the runtime the executable is made from. */
  runtimePackage: string;
  /** Its `dist.integrity` for RUNTIME_VERSION, pinned so a changed tarball stops the build. */
  runtimeIntegrity: string;
  /** `process.platform` and `process.arch` where it runs (npm's `os` and `cpu`). */
  os: "linux" | "darwin" | "win32";
  cpu: "x64" | "arm64";
  /** Linux only: npm's `libc`. */
  libc?: "glibc" | "musl";
  /** Built for x64 CPUs without AVX2; npm installs it only when asked (see npm/bin/toolhost.js). */
  baseline?: boolean;
  /** What the executable file format and machine field must say (checked by the tests). */
  format: "elf" | "macho" | "pe";
}

/**
 * The bun release the runtimes belong to. It must equal the bun that compiles (package.json's
 * devDependency): the executable's precompiled bytecode is only valid in the same version.
 */
export const RUNTIME_VERSION = "1.4.5";

export const TARGETS: readonly Target[] = [
  {
    name: "linux-x64",
    bunTarget: "bun-linux-x64",
    runtimePackage: "@oven/bun-linux-x64",
    runtimeIntegrity:
      "sha512-IWX9BELoGHAUtMonkeSaNaZwXzRk+oDw6Mk+HBFXd3KHYIBNBsIGRupMZPcgNoDbJpLu6gAJjIoIVPZtt1aJ1g==",
    os: "linux",
    cpu: "x64",
    libc: "glibc",
    format: "elf",
  },
  {
    name: "linux-x64-baseline",
    bunTarget: "bun-linux-x64-baseline",
    runtimePackage: "@oven/bun-linux-x64-baseline",
    runtimeIntegrity:
      "sha512-s8yMwYcFnnrA178gji0gZbkE2WVDej/Ti1x770oPfihxyRxSMNhGhiAQNXV53aDeraZxksdvKV/RAdQBCd0qPA==",
    os: "linux",
    cpu: "x64",
    libc: "glibc",
    baseline: true,
    format: "elf",
  },
  {
    name: "linux-arm64",
    bunTarget: "bun-linux-arm64",
    runtimePackage: "@oven/bun-linux-aarch64",
    runtimeIntegrity:
      "sha512-4BXmsSKnjOrlGWqZV4x/oWa7AVoR+B6lCXddMzOAXBIm3t50eslg9wb66gmtW1AamEQ1l1CDvmmruysEhqOWMg==",
    os: "linux",
    cpu: "arm64",
    libc: "glibc",
    format: "elf",
  },
  {
    name: "linux-x64-musl",
    bunTarget: "bun-linux-x64-musl",
    runtimePackage: "@oven/bun-linux-x64-musl",
    runtimeIntegrity:
      "sha512-10QoW/YfTgnURaGEaHpJCiXjLI2e5iTtfVDaA5JKcyUzaa1cq6cVUY9/Uq5XkYzvtRjHLRe9Oj/lTDIQcxy8HQ==",
    os: "linux",
    cpu: "x64",
    libc: "musl",
    format: "elf",
  },
  {
    name: "linux-arm64-musl",
    bunTarget: "bun-linux-arm64-musl",
    runtimePackage: "@oven/bun-linux-aarch64-musl",
    runtimeIntegrity:
      "sha512-XCNc+WvvMAdNNb+OWTogpy+N9wm62fkVeEVLb6how0RZhW5LPi6c7BlkeVCuWps7XjEl2saFpHFa20/1E+PAHg==",
    os: "linux",
    cpu: "arm64",
    libc: "musl",
    format: "elf",
  },
  {
    name: "darwin-x64",
    bunTarget: "bun-darwin-x64",
    runtimePackage: "@oven/bun-darwin-x64",
    runtimeIntegrity:
      "sha512-qkLPMGHZM9NI6CeHTWwVezzmlo6cC4Ta7yUAjYIWXS366qQcOlcp75t2uZyiuVRBMPS0h9qE0tCcvCHGaFqjJg==",
    os: "darwin",
    cpu: "x64",
    format: "macho",
  },
  {
    name: "darwin-arm64",
    bunTarget: "bun-darwin-arm64",
    runtimePackage: "@oven/bun-darwin-aarch64",
    runtimeIntegrity:
      "sha512-4MIFXHmctH2EhAxLXm2/qxNtv17dFtLJylvaOCsrgq6KSqHTs6eW5YSrJjRbJxYUJaR901fsN8JfZOa+CsWpWQ==",
    os: "darwin",
    cpu: "arm64",
    format: "macho",
  },
  {
    name: "windows-x64",
    bunTarget: "bun-windows-x64",
    runtimePackage: "@oven/bun-windows-x64",
    runtimeIntegrity:
      "sha512-FNvply651vcE/GHgNWz6mZvhmkwBuu8Hw54oNzA+CQog+HW+542rXQmZqNHRkFxazD9L3xi+iTtvO3engAgJfw==",
    os: "win32",
    cpu: "x64",
    format: "pe",
  },
];

export const executableName = (target: Target): string =>
  target.os === "win32" ? "toolhost.exe" : "toolhost";

/** The release archive's file name (without a version, so "latest" links keep working). */
export const archiveName = (target: Target): string =>
  `toolhost-${target.name}${target.os === "win32" ? ".zip" : ".tar.gz"}`;

/** The npm package that carries the target's binary. */
export const npmPackageName = (target: Target): string => `@toolhost/${target.name}`;

/** The targets named in a comma-separated list (all of them for undefined). */
export function selectTargets(list: string | undefined): Target[] {
  if (list === undefined) return [...TARGETS];
  const names = list.split(",").map((name) => name.trim()).filter(Boolean);
  return names.map((name) => {
    const target = TARGETS.find((t) => t.name === name);
    if (!target) {
      throw new Error(
        `unknown target "${name}"; the targets are ${TARGETS.map((t) => t.name).join(", ")}`,
      );
    }
    return target;
  });
}

/** The target this machine runs natively (AVX2 builds for x64), if it is one of ours. */
export function hostTarget(
  platform: string,
  arch: string,
  libc: "glibc" | "musl" = "glibc",
): Target | undefined {
  return TARGETS.find((t) =>
    t.os === platform && t.cpu === arch && !t.baseline && (t.os !== "linux" || t.libc === libc)
  );
}
