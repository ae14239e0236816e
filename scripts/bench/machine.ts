/** One line saying where the figures come from, so two reports can be compared fairly. */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpus, release, totalmem } from "node:os";
import process from "node:process";

const version = (command: string) =>
  execFileSync(command, ["--version"], { encoding: "utf8" }).trim();

const packageVersion = (root: string, name: string): string =>
  JSON.parse(readFileSync(`${root}node_modules/${name}/package.json`, "utf8")).version;

export function describeMachine(root: string): string {
  const cpuList = cpus();
  return `Machine: ${cpuList.length} CPUs (${cpuList[0]?.model ?? "unknown model"}), ` +
    `${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Linux ${release()}. SDK server: node ` +
    `${version("node")}, @modelcontextprotocol/sdk ` +
    `${packageVersion(root, "@modelcontextprotocol/sdk")} with zod ` +
    `${packageVersion(root, "zod")}, bundled by bun. toolhost: bun ` +
    `${version(`${root}node_modules/.bin/bun`)} --compile binaries. Client: this script on ` +
    `deno ${process.versions.deno}.`;
}
