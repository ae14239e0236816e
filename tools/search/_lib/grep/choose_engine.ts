/**
 * Which engine answers a grep call, chosen once per call: TOOLHOST_GREP=rg or =builtin forces one
 * (tests compare them); otherwise rg when there is one, on PATH or beside the executable
 * (ripgrep_path.ts), else the built-in engine. The rg engine hands a tree it must not walk to the
 * built-in one.
 */
import process from "node:process";
import { ToolError } from "../../../../mcp/tool/mod.ts";
import { BuiltinEngine } from "./builtin/builtin_engine.ts";
import type { GrepEngine } from "./engine.ts";
import { RipgrepEngine } from "./ripgrep/ripgrep_engine.ts";
import { findRipgrep } from "./ripgrep/ripgrep_path.ts";

export function chooseEngine(): GrepEngine {
  const choice = process.env.TOOLHOST_GREP;
  if (choice === "builtin") return new BuiltinEngine();
  const rg = findRipgrep();
  if (choice === "rg" && !rg) {
    throw new ToolError(
      "TOOLHOST_GREP=rg is set but there is no rg on PATH or beside toolhost: install ripgrep " +
        "or unset it",
    );
  }
  return rg ? new RipgrepEngine(rg, (reason) => new BuiltinEngine(reason)) : new BuiltinEngine();
}
