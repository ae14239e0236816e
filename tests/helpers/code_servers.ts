/**
 * For the code tools' e2e tests: a toolhost on a scratch project whose PATH holds only the
 * system directories and this repository's node_modules/.bin (the pinned language servers), and
 * a call helper that returns the text and structured content.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { modern, PRODUCT_BINARY, RawClient, ROOT } from "./raw_client.ts";

export const SERVER_PATH = `${join(ROOT, "node_modules", ".bin")}:/usr/local/bin:/usr/bin:/bin`;

/** A fresh directory holding `files` (relative path -> content). */
export function project(name: string, files: Record<string, string>): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), `toolhost-${name}-`)));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

export function startOn(root: string, args: string[] = [], env: Record<string, string> = {}) {
  return new RawClient(PRODUCT_BINARY, ["--root", root, ...args], root, {
    TOOLHOST_STATE_DIR: mkdtempSync(join(tmpdir(), "toolhost-code-state-")),
    PATH: SERVER_PATH,
    ...env,
  });
}

export interface Called {
  text: string;
  isError: boolean;
  structured?: Record<string, unknown>;
}

export async function call(
  c: RawClient,
  name: string,
  args: Record<string, unknown>,
  timeoutMs = 120_000,
): Promise<Called> {
  const reply = await c.request("tools/call", modern({ name, arguments: args }), timeoutMs);
  assert.ok(reply.result, JSON.stringify(reply.error));
  const result = reply.result as {
    content: { text?: string }[];
    isError?: boolean;
    structuredContent?: Record<string, unknown>;
  };
  return {
    text: result.content.map((b) => b.text ?? "").join("\n"),
    isError: !!result.isError,
    structured: result.structuredContent,
  };
}

export async function ok(c: RawClient, name: string, args: Record<string, unknown>) {
  const r = await call(c, name, args);
  assert.equal(r.isError, false, r.text);
  return r;
}
