/**
 * A request the server does not answer in its time is given up on: cancelled with
 * `$/cancelRequest` by default, only left unanswered for a server that breaks on cancels
 * (pyright: `neverCancel` in the table of servers).
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { Connection, NoAnswer } from "../../tools/code/_lib/lsp/_connection.ts";
import { ROOT } from "../helpers/raw_client.ts";
import { posixOnly } from "../helpers/posix_only.ts";

const POSIX = posixOnly("the fake server is a node script");
const FAKE = join(ROOT, "tests", "code", "fake_lsp_server.mjs");

/** What the fake server received, one method a line, after a references request timed out. */
async function afterTimeout(cancels: boolean | undefined): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), "toolhost-lsp-cancel-"));
  const log = join(dir, "messages.log");
  const connection = new Connection({
    command: "node",
    args: [FAKE, "hang-references"],
    cwd: dir,
    env: { FAKE_LSP_LOG: log },
    confinement: { unconfined: "a test's fake server" },
    cancels,
  });
  try {
    await connection.request(
      "initialize",
      { processId: null, rootUri: null, capabilities: {} },
      30_000,
    );
    const refs = connection.request("textDocument/references", {
      textDocument: { uri: `file://${dir}/x.fake` },
      position: { line: 0, character: 4 },
      context: { includeDeclaration: true },
    }, 200);
    await assert.rejects(refs, (error) => error instanceof NoAnswer);
    // A request sent after: once the server has logged it, it has read what came before.
    await connection.request("shutdown", null, 30_000);
    return readFileSync(log, "utf8").trim().split("\n").map((line) => line.split(" ")[0]);
  } finally {
    await connection.stop("the test ended");
  }
}

test(
  "a request past its time is cancelled, unless the server is one that breaks on cancels",
  POSIX,
  async () => {
    const cancelled = await afterTimeout(undefined);
    assert.ok(cancelled.includes("$/cancelRequest"), cancelled.join(", "));
    const kept = await afterTimeout(false);
    assert.ok(kept.includes("textDocument/references"), kept.join(", "));
    assert.ok(!kept.includes("$/cancelRequest"), kept.join(", "));
  },
);
