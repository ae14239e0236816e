/**
 * Cold start of the release as a client meets it, spawn to the initialize reply: the release
 * binary, its npm launcher run directly, `npx -y toolhost` and `bunx toolhost` (launcher plus
 * native binary, installed from the packed tarballs), against the benchmark's server on the official SDK run by node and by
 * `npx -y` (its bundle packed as an npm package the same way). After `deno task release`:
 *
 *   ./node_modules/.bin/deno run --allow-all scripts/release/bench_start.ts
 *
 * npx and bunx find the package already installed, as on a client's second start; the first
 * `npx -y` also downloads it, which depends on the network and is not measured here.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { coldStart, type ServerCommand } from "../bench/measurements.ts";
import { markdownTable, ms } from "../bench/report.ts";
import { median, percentile } from "../bench/stats.ts";
import { ROOT, version } from "./source.ts";
import { hostTarget } from "./targets.ts";

const RUNS = 20;
const release = `${ROOT}dist/release`;
const host = hostTarget(process.platform, process.arch)!;
const progress = (text: string) => process.stderr.write(`bench: ${text}\n`);

/** The SDK server the benchmark compares against, as a one-file npm package with a bin. */
function packSdkServer(dir: string): string {
  const pkg = join(dir, "sdk-echo-server");
  mkdirSync(pkg, { recursive: true });
  execFileSync(`${ROOT}node_modules/.bin/bun`, [
    "build",
    "--target=node",
    "--minify",
    "--outfile",
    join(pkg, "bundle.mjs"),
    `${ROOT}scripts/bench/sdk_server.ts`,
  ], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
  const bundle = readFileSync(join(pkg, "bundle.mjs"), "utf8");
  writeFileSync(join(pkg, "server.mjs"), `#!/usr/bin/env node\n${bundle}`);
  chmodSync(join(pkg, "server.mjs"), 0o755);
  writeFileSync(
    join(pkg, "package.json"),
    JSON.stringify({
      name: "sdk-echo-server",
      version: "1.0.0",
      bin: { "sdk-echo-server": "server.mjs" },
      files: ["server.mjs"],
    }),
  );
  const out = execFileSync("npm", ["pack", pkg, "--pack-destination", dir, "--silent"], {
    encoding: "utf8",
  });
  return join(dir, out.trim().split("\n").pop()!);
}

const dir = mkdtempSync(join(tmpdir(), "toolhost-bench-start-"));
writeFileSync(join(dir, "package.json"), '{ "private": true }\n');
progress(`installing toolhost ${version()} and the SDK server from tarballs into ${dir}`);
execFileSync("npm", [
  "install",
  `${release}/npm/toolhost-${version()}.tgz`,
  `${release}/npm/toolhost-${host.name}-${version()}.tgz`,
  packSdkServer(dir),
  "--offline",
  "--no-audit",
  "--no-fund",
  "--loglevel=error",
], { cwd: dir, stdio: ["ignore", "ignore", "inherit"] });

const npx = { command: "npx", args: ["-y"] };
const servers: [string, ServerCommand][] = [
  ["release binary", { command: `${release}/toolhost-${host.name}/toolhost`, args: [] }],
  ["launcher (node_modules/.bin/toolhost)", {
    command: join(dir, "node_modules/.bin/toolhost"),
    args: [],
  }],
  ["npx -y toolhost", { command: npx.command, args: [...npx.args, "toolhost"] }],
  ["bunx toolhost", { command: `${ROOT}node_modules/.bin/bun`, args: ["x", "toolhost"] }],
  ["node (SDK server bundle)", {
    command: "node",
    args: [join(dir, "node_modules/sdk-echo-server/server.mjs")],
  }],
  ["npx -y (SDK server)", { command: npx.command, args: [...npx.args, "sdk-echo-server"] }],
];

// Started from the project, so that npx and bunx find what is installed there.
process.chdir(dir);
for (const [, server] of servers) await coldStart(server); // one untimed start each
const times = new Map<string, number[]>(servers.map(([name]) => [name, []]));
progress(`${RUNS} starts each, interleaved`);
for (let run = 0; run < RUNS; run++) {
  for (const [name, server] of servers) times.get(name)!.push(await coldStart(server));
}

process.chdir(ROOT);
rmSync(dir, { recursive: true, force: true });

const sdkNpx = median(times.get("npx -y (SDK server)")!);
console.log(markdownTable(
  ["server", "cold start, median", "p90", "vs npx of the SDK server"],
  servers.map(([name]) => {
    const list = times.get(name)!;
    return [
      name,
      ms(median(list)),
      ms(percentile(list, 90)),
      `${(sdkNpx / median(list)).toFixed(1)}× faster`,
    ];
  }),
));
