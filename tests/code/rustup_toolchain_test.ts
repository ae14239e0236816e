/**
 * The toolchain named to rustup for a read-only server: the user's override for the project's
 * directory (the longest that holds it), else the default, else a name rustup refuses; never
 * what the project's rust-toolchain.toml says (that file is what it outranks).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { NO_TOOLCHAIN, userRustToolchain } from "../../tools/code/_lib/lsp/_rustup_toolchain.ts";

function withRustupHome(settings: string | undefined, run: () => void): void {
  const home = mkdtempSync(join(tmpdir(), "toolhost-rustup-"));
  const saved = { home: process.env.RUSTUP_HOME, toolchain: process.env.RUSTUP_TOOLCHAIN };
  if (settings !== undefined) writeFileSync(join(home, "settings.toml"), settings);
  process.env.RUSTUP_HOME = home;
  delete process.env.RUSTUP_TOOLCHAIN;
  try {
    run();
  } finally {
    if (saved.home === undefined) delete process.env.RUSTUP_HOME;
    else process.env.RUSTUP_HOME = saved.home;
    if (saved.toolchain !== undefined) process.env.RUSTUP_TOOLCHAIN = saved.toolchain;
    rmSync(home, { recursive: true, force: true });
  }
}

const SETTINGS = [
  'version = "12"',
  'default_toolchain = "stable-x86_64-unknown-linux-gnu"',
  'profile = "default"',
  "",
  "[overrides]",
  '"/work/app" = "nightly-2026-01-01"',
  '"/work/app/inner" = "1.80.0"',
  '"/work/app2" = "beta"',
  "",
].join("\n");

test("the user's override for the project's directory, the longest that holds it", () => {
  withRustupHome(SETTINGS, () => {
    assert.equal(userRustToolchain("/work/app"), "nightly-2026-01-01");
    assert.equal(userRustToolchain("/work/app/src"), "nightly-2026-01-01");
    assert.equal(userRustToolchain("/work/app/inner/crate"), "1.80.0");
  });
});

test("else the default, compared on whole path segments", () => {
  withRustupHome(SETTINGS, () => {
    assert.equal(userRustToolchain("/work/ap"), "stable-x86_64-unknown-linux-gnu");
    assert.equal(userRustToolchain("/work/app3"), "stable-x86_64-unknown-linux-gnu");
  });
});

test("no settings, or no default: a name rustup refuses rather than the project's file", () => {
  withRustupHome(undefined, () => assert.equal(userRustToolchain("/work/app"), NO_TOOLCHAIN));
  withRustupHome('version = "12"\n', () => {
    assert.equal(userRustToolchain("/work/app"), NO_TOOLCHAIN);
  });
});

test("a RUSTUP_TOOLCHAIN the user set is theirs, and kept", () => {
  withRustupHome(SETTINGS, () => {
    process.env.RUSTUP_TOOLCHAIN = "1.70.0";
    try {
      assert.equal(userRustToolchain("/work/app"), "1.70.0");
    } finally {
      delete process.env.RUSTUP_TOOLCHAIN;
    }
  });
});
