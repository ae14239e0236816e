/**
 * The servers the stdio benchmarks start: the compiled toolhost binaries, the official SDK's echo
 * server bundled for node, and the runtime's floor (a bare Bun line echo). What must be built is
 * built once per run.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { compileArguments } from "../build.ts";
import type { ServerCommand } from "./measurements.ts";

/** Where the floor is compiled to, from the root. */
export const FLOOR_BINARY = "dist/bench/floor-server";
const SDK_BUNDLE = "dist/bench/sdk-server.mjs";

const built = new Map<string, ServerCommand>();

function bun(root: string, args: string[]): void {
  mkdirSync(`${root}dist/bench`, { recursive: true });
  execFileSync(`${root}node_modules/.bin/bun`, args, {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"],
  });
}

function once(key: string, make: () => ServerCommand): ServerCommand {
  let server = built.get(key);
  if (!server) built.set(key, server = make());
  return server;
}

/** A toolhost binary, by path from the root or absolute; built by `deno task build -- --test`. */
export function binaryServer(root: string, path: string): ServerCommand {
  const full = path.startsWith("/") ? path : `${root}${path}`;
  if (!existsSync(full)) throw new Error(`${path} is missing: run \`deno task build -- --test\``);
  return { command: full, args: [] };
}

/** Bundled first so node loads one file, as a published SDK server would ship. */
export function sdkServer(root: string): ServerCommand {
  return once(`sdk\0${root}`, () => {
    bun(root, [
      "build",
      "--target=node",
      "--minify",
      "--outfile",
      SDK_BUNDLE,
      "scripts/bench/sdk_server.ts",
    ]);
    return { command: "node", args: [`${root}${SDK_BUNDLE}`] };
  });
}

/** The floor is compiled with the product's own flags, so the runtime costs the same. */
export function floorServer(root: string): ServerCommand {
  return once(`floor\0${root}`, () => {
    const args = compileArguments("scripts/bench/floor_server.ts", FLOOR_BINARY, "bench");
    // The product's worker entry points are no part of the floor.
    bun(root, args.slice(0, args.indexOf("scripts/bench/floor_server.ts") + 1));
    return { command: `${root}${FLOOR_BINARY}`, args: [] };
  });
}
