/** Shutdown hooks: collected from modules like tool hooks, all run, bounded in time, failures logged. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { defineShutdownHook, runShutdownHooks, sortContributions } from "../../mcp/features/mod.ts";
import type { Logger, LogLevel } from "../../mcp/wire/mod.ts";
import { defineTool, defineToolHook } from "../../mcp/tool/mod.ts";
import { toolModules } from "../../tools/mod.ts";

function recordingLogger() {
  const lines: { level: LogLevel; message: string }[] = [];
  const logger: Logger = { log: (level, message) => lines.push({ level, message }) };
  return { logger, lines };
}

test("a module's shutdown hooks are sorted apart from its tool and its tool hooks", () => {
  const tool = defineTool({
    name: "t",
    description: "d",
    input: { type: "object" },
    run: () => Promise.resolve("x"),
  });
  const toolHook = defineToolHook({ name: "gate", phase: "gate", before() {} });
  const flush = defineShutdownHook({ name: "flush", run() {} });
  const sorted = sortContributions([[tool, toolHook, flush]]);
  assert.deepEqual(sorted.tools, [tool]);
  assert.deepEqual(sorted.hooks, [toolHook]);
  assert.deepEqual(sorted.shutdownHooks, [flush]);
});

test("the journal's flush reaches main.ts through the barrel, not by import", () => {
  const names = sortContributions(toolModules).shutdownHooks.map((hook) => hook.name);
  assert.ok(names.includes("journal flush"), `shutdown hooks: ${names.join(", ")}`);
});

test("every hook runs, and one that throws is logged without keeping the others from ending", async () => {
  const { logger, lines } = recordingLogger();
  const ran: string[] = [];
  await runShutdownHooks(
    [
      defineShutdownHook({
        name: "broken",
        run() {
          throw new Error("disk gone");
        },
      }),
      defineShutdownHook({
        name: "slow",
        run: async (ms) => {
          ran.push(`slow got ${ms}`);
          await Promise.resolve();
          ran.push("slow ended");
        },
      }),
      defineShutdownHook({ name: "rejects", run: () => Promise.reject(new Error("no")) }),
    ],
    5000,
    logger,
  );
  assert.deepEqual(ran, ["slow got 5000", "slow ended"]);
  assert.deepEqual(lines.map((l) => l.level), ["error", "error"]);
  assert.match(lines[0].message, /shutdown hook broken failed: .*disk gone/);
  assert.match(lines[1].message, /shutdown hook rejects failed: .*no/);
});

test("a hook that never ends does not hold the shutdown past its budget", async () => {
  const { logger } = recordingLogger();
  let other = false;
  await runShutdownHooks(
    [
      defineShutdownHook({ name: "hangs", run: () => new Promise(() => {}) }),
      defineShutdownHook({ name: "quick", run: () => void (other = true) }),
    ],
    20,
    logger,
  );
  assert.equal(other, true);
});
