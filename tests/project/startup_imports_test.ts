/**
 * What a stdio start-up loads: the modules main.ts reaches by static imports alone (dynamic
 * `import()` is what defers the rest). The OAuth package and jose must not be among them.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Static, value-carrying imports of a file (`import type` is erased, so it loads nothing). */
function staticImports(text: string): string[] {
  const found: string[] = [];
  const statement = /^(?:import|export)(?!\s+type\b)\s*[^;"'`]*?from\s*["']([^"']+)["']/gm;
  for (const m of text.matchAll(statement)) found.push(m[1]);
  for (const m of text.matchAll(/^import\s+["']([^"']+)["']/gm)) found.push(m[1]);
  return found;
}

function reachedFromMain(): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = ["main.ts"];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const spec of staticImports(readFileSync(join(ROOT, file), "utf8"))) {
      if (spec.startsWith("./") || spec.startsWith("../")) {
        const next = normalize(join(dirname(file), spec));
        if (next.endsWith(".ts")) queue.push(next);
      } else if (!spec.startsWith("node:")) packages.add(spec);
    }
  }
  return { files, packages };
}

test("a stdio start-up loads neither the OAuth package nor jose", () => {
  const { files, packages } = reachedFromMain();
  assert.ok(files.has("mcp/http/auth_settings.ts"), "the start-up check is static (and cheap)");
  assert.ok(files.has("mcp/server/connection.ts"), "the walk follows the real graph");
  const auth = [...files].filter((file) => file.startsWith("mcp/http/auth/"));
  assert.deepEqual(auth, []);
  assert.ok(!packages.has("jose"), [...packages].join(" "));
});
