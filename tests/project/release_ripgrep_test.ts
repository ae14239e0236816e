/**
 * The ripgrep a release ships (scripts/release/ripgrep.ts), without the network: every target
 * has a decision, the cache is checked against the pinned SHA-256 before use, a wrong file stops
 * the build, and rg and its licence files come out of both archive kinds.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { tarGz, zip } from "../../scripts/release/archive.ts";
import {
  cachedAsset,
  RIPGREP_ASSETS,
  RIPGREP_LICENSES,
  RIPGREP_VERSION,
  type RipgrepAsset,
  ripgrepFor,
  unpack,
} from "../../scripts/release/ripgrep.ts";
import { TARGETS } from "../../scripts/release/targets.ts";

const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");
const scratch = () => mkdtempSync(join(tmpdir(), "toolhost-rgrelease-"));

/** An archive laid out as ripgrep's are: one folder named like the file, rg and licences in it. */
async function fakeAsset(name: string, executable: string) {
  const folder = name.replace(/\.(zip|tar\.gz)$/, "");
  const entries = [
    { path: `${folder}/`, mode: 0o755 },
    { path: `${folder}/${executable}`, data: Buffer.from("#!/bin/sh\necho rg\n"), mode: 0o755 },
    ...RIPGREP_LICENSES.map((l) => ({ path: `${folder}/${l}`, data: Buffer.from(l), mode: 0o644 })),
  ];
  const data = name.endsWith(".zip") ? await zip(entries, 0) : await tarGz(entries, 0);
  return { asset: { name, sha256: sha256(data) } as RipgrepAsset, data };
}

test("every release target has a decision, and the pins are well formed", () => {
  for (const t of TARGETS) {
    assert.ok(Object.hasOwn(RIPGREP_ASSETS, t.name), `${t.name} is in RIPGREP_ASSETS`);
  }
  for (const asset of Object.values(RIPGREP_ASSETS)) {
    if (!asset) continue;
    assert.match(
      asset.name,
      new RegExp(`^ripgrep-${RIPGREP_VERSION}-[a-z0-9_-]+\\.(tar\\.gz|zip)$`),
    );
    assert.match(asset.sha256, /^[0-9a-f]{64}$/);
  }
  // No arm64 musl build exists; the glibc one would not start there.
  assert.equal(RIPGREP_ASSETS["linux-arm64-musl"], undefined);
  // The static musl build serves every x64 Linux.
  for (const name of ["linux-x64", "linux-x64-baseline", "linux-x64-musl"]) {
    assert.match(RIPGREP_ASSETS[name]!.name, /x86_64-unknown-linux-musl\.tar\.gz$/);
  }
});

test("a cached asset is used only when its SHA-256 is the pinned one", async () => {
  const dir = scratch();
  const { asset, data } = await fakeAsset("ripgrep-x-linux.tar.gz", "rg");
  writeFileSync(join(dir, asset.name), data);
  assert.ok(Buffer.from(await cachedAsset(asset, dir)).equals(data));
  writeFileSync(join(dir, asset.name), Buffer.concat([data, Buffer.from("x")]));
  await assert.rejects(cachedAsset(asset, dir), /has SHA-256 [0-9a-f]{64}, not the pinned/);
});

test("a download is kept in the cache only when it has the pinned SHA-256", async () => {
  const dir = scratch();
  const { asset, data } = await fakeAsset("ripgrep-y-linux.tar.gz", "rg");
  await assert.rejects(
    cachedAsset(asset, dir, () => Promise.resolve(new Uint8Array([1]))),
    /not the pinned/,
  );
  assert.equal(existsSync(join(dir, asset.name)), false);
  const urls: string[] = [];
  const got = await cachedAsset(asset, dir, (url) => (urls.push(url), Promise.resolve(data)));
  assert.deepEqual(got, data);
  assert.deepEqual(urls, [
    `https://github.com/BurntSushi/ripgrep/releases/download/${RIPGREP_VERSION}/${asset.name}`,
  ]);
  assert.equal(existsSync(join(dir, asset.name)), true);
});

for (
  const [name, executable] of [["ripgrep-z-linux.tar.gz", "rg"], [
    "ripgrep-z-windows.zip",
    "rg.exe",
  ]]
) {
  test(`rg and its licence files come out of a ${name.split(".").slice(1).join(".")}`, async () => {
    const { asset, data } = await fakeAsset(name, executable);
    const files = await unpack(asset, data, executable);
    assert.equal(Buffer.from(files.executable).toString(), "#!/bin/sh\necho rg\n");
    assert.deepEqual(
      files.licenses.map((l) => [l.name, Buffer.from(l.data).toString()]),
      RIPGREP_LICENSES.map((l) => [l, l]),
    );
  });
}

test("without the asset, a release goes on without rg and says so, unless rg is required", async () => {
  const linux = TARGETS.find((t) => t.name === "linux-x64")!;
  const warnings: string[] = [];
  const options = {
    cacheDir: scratch(),
    download: false,
    required: false,
    warn: (t: string) => warnings.push(t),
  };
  assert.equal(await ripgrepFor(linux, options), undefined);
  assert.match(warnings.join("\n"), /toolhost-linux-x64 is built WITHOUT rg/);
  await assert.rejects(
    ripgrepFor(linux, { ...options, required: true }),
    /rg for linux-x64: .* downloading is off/,
  );
  // A platform ripgrep has no build for gets none, required or not, silently.
  const armMusl = TARGETS.find((t) => t.name === "linux-arm64-musl")!;
  assert.equal(await ripgrepFor(armMusl, { ...options, required: true }), undefined);
});
