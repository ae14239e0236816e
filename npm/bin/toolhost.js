#!/usr/bin/env node
// The `toolhost` command of the npm package. It only picks the native binary for this machine,
// which npm installed from the matching optional @toolhost/<platform> package, and runs it with
// this process's stdin, stdout and stderr untouched: the MCP session never passes through here.
// Signals are passed on, and the binary's exit code (or the signal it died of) comes back.
// Plain CommonJS with node: built-ins only, so it runs on Node 18+ and under bunx.
"use strict";

const { spawn } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const process = require("node:process");

const FORWARDED = ["SIGINT", "SIGTERM", "SIGHUP"];
const EXECUTABLE = process.platform === "win32" ? "toolhost.exe" : "toolhost";

/** The C library of this very process tells glibc from musl (Alpine) without running anything. */
function linuxLibc() {
  try {
    const maps = fs.readFileSync("/proc/self/maps", "utf8");
    if (/ld-musl-|libc\.musl-/.test(maps)) return "musl";
    if (/\/libc\.so\.6|\/libc-2\.\d+\.so/.test(maps)) return "glibc";
  } catch {
    // no /proc: ask the runtime below
  }
  const report = process.report && process.report.getReport && process.report.getReport();
  const header = report && (typeof report === "string" ? JSON.parse(report) : report).header;
  return header && header.glibcVersionRuntime ? "glibc" : "musl";
}

/** Without AVX2 the regular x64 build stops with an illegal instruction; baseline runs anywhere. */
function hasAvx2() {
  try {
    return /^flags\s*:.*\bavx2\b/m.test(fs.readFileSync("/proc/cpuinfo", "utf8"));
  } catch {
    return true;
  }
}

/** The @toolhost/<name> packages that can run here, best first. */
function candidates() {
  const { platform, arch } = process;
  if (platform === "win32" && arch === "x64") return ["windows-x64"];
  if (platform === "darwin" && (arch === "x64" || arch === "arm64")) return [`darwin-${arch}`];
  if (platform === "linux" && (arch === "x64" || arch === "arm64")) {
    if (linuxLibc() === "musl") return [`linux-${arch}-musl`];
    if (arch === "arm64") return ["linux-arm64"];
    return hasAvx2() ? ["linux-x64", "linux-x64-baseline"] : ["linux-x64-baseline"];
  }
  return [];
}

function fail(message) {
  process.stderr.write(`toolhost: ${message}\n`);
  process.exit(1);
}

function findBinary() {
  const names = candidates();
  if (names.length === 0) {
    fail(
      `there is no toolhost build for ${process.platform}-${process.arch}; builds exist for ` +
        "Linux (x64, arm64; glibc and musl), macOS (x64, arm64) and Windows (x64)",
    );
  }
  for (const name of names) {
    try {
      return require.resolve(`@toolhost/${name}/bin/${EXECUTABLE}`);
    } catch {
      // not installed; try the next
    }
  }
  if (names[0] === "linux-x64-baseline") {
    fail(
      "this CPU lacks AVX2, which the regular x64 build needs, and @toolhost/linux-x64-baseline " +
        "is not installed. Run it with: npx -y -p toolhost -p @toolhost/linux-x64-baseline toolhost",
    );
  }
  fail(
    `the package @toolhost/${names[0]} that holds the binary for this machine is not ` +
      "installed. npm leaves out optional dependencies with --omit=optional (or " +
      "--no-optional); install again without it, or use install.sh from the release page",
  );
}

/** npm keeps the executable bit, but not every package manager does. */
function ensureExecutable(binary) {
  if (process.platform === "win32") return;
  try {
    fs.accessSync(binary, fs.constants.X_OK);
  } catch {
    try {
      fs.chmodSync(binary, 0o755);
    } catch {
      // spawn reports the failure
    }
  }
}

const binary = findBinary();
ensureExecutable(binary);
// Tells the binary it was started from npm, so `--mcp-json` prints `npx -y toolhost` rather
// than a path inside npm's cache, which npm may clear.
const env = { ...process.env, TOOLHOST_NPM_LAUNCHER: "1" };
const child = spawn(binary, process.argv.slice(2), { stdio: "inherit", windowsHide: true, env });

const forward = (signal) => {
  try {
    child.kill(signal);
  } catch {
    // the child is already gone; its exit ends us
  }
};
// Windows: the console gives Ctrl+C and Ctrl+Break (and its closing) to the child itself, and
// child.kill would be TerminateProcess, cutting the server's orderly stop short: nothing to forward.
if (process.platform !== "win32") {
  for (const signal of FORWARDED) process.on(signal, forward);
}

child.on("error", (error) => fail(`could not start ${binary}: ${error.message}`));
child.on("exit", (code, signal) => {
  if (signal === null) process.exit(code === null ? 1 : code);
  // Die of the same signal, so whoever started us sees what happened to the server.
  for (const name of FORWARDED) process.removeListener(name, forward);
  const number = os.constants.signals[signal] || 0;
  if (signal !== "SIGUSR1") {
    try {
      process.kill(process.pid, signal);
    } catch {
      // fall through to the exit code shells use for a signal
    }
  }
  // Node ignores SIGPIPE and starts its inspector on SIGUSR1; those end with 128 + the number.
  setTimeout(() => process.exit(128 + number), 100);
});
