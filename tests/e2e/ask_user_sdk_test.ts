/**
 * ask_user with the official clients: the legacy SDK answers a server→client
 * elicitation/create; the 2026-07-28 client fulfils an input_required result through the same
 * kind of handler and retries the call by itself.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Client as ModernClient } from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernTransport } from "@modelcontextprotocol/client/stdio";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { e2eFixture } from "../helpers/e2e.ts";
import { binary, PRODUCT_BINARY } from "../helpers/raw_client.ts";

const e2e = e2eFixture();

/**
 * How to start the server: in a scratch home and working directory, so the skill tool reads none
 * of the developer's skills (~/.claude/skills, TOOLHOST_SKILL_DIRS) while it prepares.
 */
function server() {
  const home = e2e.scratch("ask-user");
  return {
    command: binary(PRODUCT_BINARY),
    cwd: home,
    env: { HOME: home, TOOLHOST_SKILL_DIRS: "" },
    stderr: "pipe" as const,
  };
}

const questions = [{
  question: "Ship it today?",
  header: "Release",
  options: [{ label: "Yes" }, { label: "No", description: "wait for review" }],
}];

test("the legacy SDK client answers ask_user's form", async () => {
  const client = new Client({ name: "sdk-e2e", version: "1.0.0" }, {
    capabilities: { elicitation: {} },
  });
  const seen: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    seen.push(request.params.message);
    return { action: "accept", content: { q1: "No" } };
  });
  await client.connect(
    new StdioClientTransport(server()),
  );
  try {
    const result = await client.callTool({ name: "ask_user", arguments: { questions } });
    assert.deepEqual(seen, ["Ship it today?"]);
    assert.equal(
      (result.content as { text: string }[])[0].text,
      "The user answered:\n1. Release: No",
    );
  } finally {
    await client.close();
  }
});

test("the 2026-07-28 client fulfils input_required and retries; the answer arrives", async () => {
  const client = new ModernClient(
    { name: "sdk-modern-e2e", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } }, capabilities: { elicitation: {} } },
  );
  let asked = 0;
  client.setRequestHandler("elicitation/create", () => {
    asked++;
    return { action: "accept", content: { q1: "Yes" } };
  });
  await client.connect(
    new ModernTransport(server()),
  );
  try {
    const result = await client.callTool({ name: "ask_user", arguments: { questions } });
    assert.equal(asked, 1);
    assert.equal(
      (result.content as { text: string }[])[0].text,
      "The user answered:\n1. Release: Yes",
    );
  } finally {
    await client.close();
  }
});

test("declining, cancelling, and a client without elicitation, in both eras", async () => {
  for (const action of ["decline", "cancel"] as const) {
    const legacy = new Client({ name: "sdk-e2e", version: "1.0.0" }, {
      capabilities: { elicitation: {} },
    });
    legacy.setRequestHandler(ElicitRequestSchema, () => ({ action }));
    await legacy.connect(
      new StdioClientTransport(server()),
    );
    const modern = new ModernClient(
      { name: "sdk-modern-e2e", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } }, capabilities: { elicitation: {} } },
    );
    modern.setRequestHandler("elicitation/create", () => ({ action }));
    await modern.connect(
      new ModernTransport(server()),
    );
    try {
      for (const client of [legacy, modern]) {
        const result = await client.callTool({ name: "ask_user", arguments: { questions } });
        assert.equal(result.isError, undefined);
        assert.match(
          (result.content as { text: string }[])[0].text,
          action === "decline" ? /declined to answer/ : /dismissed the questions/,
        );
      }
    } finally {
      await legacy.close();
      await modern.close();
    }
  }
  const plain = new Client({ name: "sdk-e2e", version: "1.0.0" });
  await plain.connect(
    new StdioClientTransport(server()),
  );
  try {
    const result = await plain.callTool({ name: "ask_user", arguments: { questions } });
    assert.equal(result.isError, true);
    assert.match(JSON.stringify(result.content), /ask them in the chat instead/);
  } finally {
    await plain.close();
  }
});
