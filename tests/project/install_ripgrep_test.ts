/**
 * install.sh with an archive that carries ripgrep, as the release workflow's do: rg is installed
 * beside toolhost as toolhost-rg (never as rg, which would shadow the user's own in a shared bin
 * folder) and its licence files under share/doc/toolhost-rg; an archive without rg installs
 * none. The archives are stand-ins (shell scripts for toolhost and rg), served from 127.0.0.1,
 * since this machine cannot fetch ripgrep; the real archives are checked in release_test.ts.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after } from "node:test";
import { promisify } from "node:util";
import { type Entry, tarGz } from "../../scripts/release/archive.ts";
import { serve } from "../helpers/local_http.ts";
import { posixOnlyTest } from "../helpers/posix_only.ts";
import { ROOT } from "../helpers/raw_client.ts";

const test = posixOnlyTest("install.sh is for Linux and macOS");
const run = promisify(execFile);
const top = mkdtempSync(join(tmpdir(), "toolhost-install-rg-"));
after(() => rmSync(top, { recursive: true, force: true }));

const TOOLHOST = "#!/bin/sh\necho 'toolhost 0.0.0 (stand-in)'\n";
const RG = "#!/bin/sh\necho 'ripgrep stand-in'\n";
const LICENCES = ["ripgrep-COPYING", "ripgrep-LICENSE-MIT", "ripgrep-UNLICENSE"];

/** A release holding only toolhost-linux-x64.tar.gz (with or without rg) and SHA256SUMS. */
async function release(withRg: boolean): Promise<Map<string, Buffer>> {
  const folder = "toolhost-linux-x64";
  const file = (name: string, text: string, mode = 0o644): Entry => ({
    path: `${folder}/${name}`,
    data: Buffer.from(text),
    mode,
  });
  const entries: Entry[] = [{ path: `${folder}/`, mode: 0o755 }, file("toolhost", TOOLHOST, 0o755)];
  if (withRg) {
    entries.push(file("rg", RG, 0o755), ...LICENCES.map((name) => file(name, `${name} text\n`)));
  }
  const archive = await tarGz(entries, 0);
  const sum = createHash("sha256").update(archive).digest("hex");
  return new Map([
    [`${folder}.tar.gz`, archive],
    ["SHA256SUMS", Buffer.from(`${sum}  ${folder}.tar.gz\n`)],
  ]);
}

async function install(files: Map<string, Buffer>, prefix: string) {
  const server = await serve((path) => files.get(path.slice(1)));
  try {
    return await run("/bin/sh", [join(ROOT, "install.sh"), join(prefix, "bin")], {
      env: {
        PATH: process.env.PATH ?? "",
        HOME: join(top, "home"),
        TOOLHOST_BASE_URL: server.url,
        TOOLHOST_PLATFORM: "linux-x64",
      },
      timeout: 60_000,
    });
  } finally {
    await server.close();
  }
}

test("an archive with rg: installed as toolhost-rg beside toolhost, its licences in share/doc", async () => {
  const prefix = join(top, "with");
  const { stderr } = await install(await release(true), prefix);
  const rg = join(prefix, "bin", "toolhost-rg");
  assert.equal(readFileSync(rg, "utf8"), RG);
  assert.equal(statSync(rg).mode & 0o777, 0o755);
  assert.equal(existsSync(join(prefix, "bin", "rg")), false, "no plain rg in the bin folder");
  for (const name of LICENCES) {
    const licence = join(prefix, "share", "doc", "toolhost-rg", name);
    assert.equal(readFileSync(licence, "utf8"), `${name} text\n`);
  }
  assert.equal(readFileSync(join(prefix, "bin", "toolhost"), "utf8"), TOOLHOST);
  assert.match(stderr, /toolhost-rg/);
});

test("an archive without rg (linux-arm64-musl's) installs no toolhost-rg", async () => {
  const prefix = join(top, "without");
  await install(await release(false), prefix);
  assert.equal(readFileSync(join(prefix, "bin", "toolhost"), "utf8"), TOOLHOST);
  assert.equal(existsSync(join(prefix, "bin", "toolhost-rg")), false);
  assert.equal(existsSync(join(prefix, "share")), false);
});
