/**
 * The smallest npm registry that `npm install` accepts, serving the tarballs in one directory:
 * a packument per package (its package.json plus dist.tarball and dist.integrity) and the
 * tarballs themselves. Anything else is a 404, so nothing reaches the real registry.
 */
import { Buffer } from "node:buffer";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type LocalServer, serve } from "./local_http.ts";

export async function npmRegistry(tarballDir: string): Promise<LocalServer> {
  const packages = new Map<string, { manifest: Record<string, unknown>; file: string }>();
  const tarballs = new Map<string, Buffer>();
  for (const file of readdirSync(tarballDir).filter((name) => name.endsWith(".tgz"))) {
    const data = readFileSync(join(tarballDir, file));
    const manifest = JSON.parse(
      execFileSync("tar", ["-xzOf", join(tarballDir, file), "package/package.json"], {
        encoding: "utf8",
      }),
    );
    manifest.dist = {
      integrity: `sha512-${createHash("sha512").update(data).digest("base64")}`,
      shasum: createHash("sha1").update(data).digest("hex"),
    };
    packages.set(manifest.name, { manifest, file });
    tarballs.set(`/-/${file}`, data);
  }
  return await serve((path, base) => {
    if (tarballs.has(path)) return tarballs.get(path);
    const entry = packages.get(path.slice(1));
    if (!entry) return undefined;
    const { manifest, file } = entry;
    const version = manifest.version as string;
    const dist = { ...(manifest.dist as object), tarball: `${base}/-/${file}` };
    return JSON.stringify({
      name: manifest.name,
      "dist-tags": { latest: version },
      versions: { [version]: { ...manifest, dist } },
    });
  });
}
