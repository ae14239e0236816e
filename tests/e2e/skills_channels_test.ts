/**
 * The skills extension (SEP-2640) on the two channels --http serves beside Streamable HTTP,
 * through the compiled binary: the 2024-11-05 HTTP+SSE transport (/sse and /messages) and
 * WebSocket on /mcp. On each, in every era the channel carries (initialize at 2024-11-05 and
 * 2025-11-25, and 2026-07-28's stateless requests): the extension announced, skills/list,
 * skills/get, resources/directory/read, a manifest file read back with its digest, and what leads
 * out of a skill refused; a changed SKILL.md told of to a 2026-07-28 subscriptions/listen on each
 * channel. Driven by raw messages, the official legacy client
 * (@modelcontextprotocol/sdk: SSEClientTransport, WebSocketClientTransport, with a subscribed
 * SKILL.md told of its change) and the 2026-07-28 one (@modelcontextprotocol/client's
 * SSEClientTransport and its SkillsClient, which checks each file against the manifest); the
 * 2026-07-28 client has no WebSocket transport.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, test } from "node:test";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client";
// The SDK's "./*" export maps types to "*.js.d.ts", which does not exist; name the types here.
// @ts-types="@modelcontextprotocol/sdk/client/sse"
import { SSEClientTransport as LegacySse } from "@modelcontextprotocol/sdk/client/sse.js";
// @ts-types="@modelcontextprotocol/sdk/client/websocket"
import { WebSocketClientTransport } from "@modelcontextprotocol/sdk/client/websocket.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  ResourceUpdatedNotificationSchema,
  ResultSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { Client, SSEClientTransport } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { e2eFixture } from "../helpers/e2e.ts";
import { type HttpServer, startHttpServer } from "../helpers/http_server.ts";
import { type Message, modern, PRODUCT_BINARY } from "../helpers/raw_client.ts";
import { posixOnly } from "../helpers/posix_only.ts";

const EXTENSION = "io.modelcontextprotocol/skills";
/** The fixture links a file out of a skill, which Windows allows only some users. */
const LINKS = posixOnly("the fixture uses symbolic links");

const e2e = e2eFixture();
let server: HttpServer;
let skillsDir: string;

before(async () => {
  if (LINKS.skip) return;
  const root = e2e.file.scratch("skills-channels");
  const outside = e2e.file.scratch("skills-outside");
  writeFileSync(join(outside, "secret.txt"), "not for the model\n");
  skillsDir = join(root, ".claude", "skills");
  const alpha = join(skillsDir, "alpha");
  mkdirSync(join(alpha, "references"), { recursive: true });
  writeFileSync(
    join(alpha, "SKILL.md"),
    "---\nname: alpha\ndescription: Alpha.\n---\nSee references/guide.md.\n",
  );
  writeFileSync(join(alpha, "references", "guide.md"), "# Guide\n");
  symlinkSync(join(outside, "secret.txt"), join(alpha, "secret.txt"));
  mkdirSync(join(skillsDir, "beta"));
  writeFileSync(join(skillsDir, "beta", "SKILL.md"), "---\nname: beta\ndescription: Beta.\n---\n");
  server = await startHttpServer(PRODUCT_BINARY, ["--root", root], {
    TOOLHOST_STATE_DIR: join(root, ".state"),
  }, root);
});

e2e.file.cleanup(() => server?.terminate());

const sha = (text: string) => `sha256:${createHash("sha256").update(text).digest("hex")}`;

/** One JSON-RPC message at a time, each way, over a channel. */
interface Channel {
  send(message: Record<string, unknown>): Promise<void>;
  /** The next message (of those not taken yet) with this id. */
  reply(id: number): Promise<Message>;
  /** The first message that matches, of those that came or come within `ms`; undefined if none. */
  waitFor(match: (m: Message) => boolean, ms: number): Promise<Message | undefined>;
  close(): void;
}

/** Messages as they come, and those who wait for one. */
class Inbox {
  readonly messages: Message[] = [];
  #wake = () => {};

  push(message: Message): void {
    this.messages.push(message);
    this.#wake();
  }

  async reply(id: number): Promise<Message> {
    return (await this.waitFor((m) => m.id === id && !("method" in m), Infinity))!;
  }

  async waitFor(match: (m: Message) => boolean, ms: number): Promise<Message | undefined> {
    let timedOut = false;
    const timer = Number.isFinite(ms)
      ? setTimeout(() => {
        timedOut = true;
        this.#wake();
      }, ms)
      : undefined;
    try {
      for (;;) {
        const found = this.messages.find(match);
        if (found || timedOut) return found;
        await new Promise<void>((resolve) => (this.#wake = resolve));
      }
    } finally {
      clearTimeout(timer);
    }
  }
}

/** GET /sse, then POSTs to the endpoint its first event names; answers come as `message` events. */
async function sseChannel(): Promise<Channel> {
  const base = `http://127.0.0.1:${server.port}`;
  const abort = new AbortController();
  const stream = await fetch(`${base}/sse`, {
    headers: { accept: "text/event-stream" },
    signal: abort.signal,
  });
  assert.equal(stream.status, 200);
  const inbox = new Inbox();
  let endpoint = (_url: string) => {};
  const named = new Promise<string>((resolve) => (endpoint = resolve));
  (async () => {
    let buffer = "";
    for await (const chunk of stream.body!.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end).split("\n");
        buffer = buffer.slice(end + 2);
        const event = block.find((l) => l.startsWith("event:"))?.slice(6).trim() ?? "message";
        const data = block.filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trimStart())
          .join("\n");
        // A block of comments alone (the stream opens with one) carries nothing.
        if (!block.some((l) => l.startsWith("data:"))) continue;
        if (event === "endpoint") endpoint(data);
        else if (event === "message") inbox.push(JSON.parse(data));
      }
    }
  })().catch(() => {}); // the stream ends when the test closes it
  const post = new URL(await named, base).href;
  return {
    async send(message) {
      const response = await fetch(post, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(message),
      });
      await response.body?.cancel();
      assert.equal(response.status, 202);
    },
    reply: (id) => inbox.reply(id),
    waitFor: (match, ms) => inbox.waitFor(match, ms),
    close: () => abort.abort(),
  };
}

/** A WebSocket on /mcp, subprotocol `mcp`: one message per text frame. */
async function webSocketChannel(): Promise<Channel> {
  const socket = new WebSocket(`ws://127.0.0.1:${server.port}/mcp`, "mcp");
  const inbox = new Inbox();
  socket.onmessage = (event) => inbox.push(JSON.parse(event.data));
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = reject;
  });
  assert.equal(socket.protocol, "mcp");
  return {
    send: (message) => Promise.resolve(socket.send(JSON.stringify(message))),
    reply: (id) => inbox.reply(id),
    waitFor: (match, ms) => inbox.waitFor(match, ms),
    close: () => socket.close(),
  };
}

type Era = "2024-11-05" | "2025-11-25" | "2026-07-28";
type Entry = { uri: string; resources: { uri: string; digest: string; size: number }[] };

/** The extension in one era over one channel: announced, listed, got, walked, read, contained. */
async function exerciseRaw(channel: Channel, era: Era) {
  let id = 0;
  const wrap = era === "2026-07-28" ? modern : (p: Record<string, unknown>) => p;
  const request = async (method: string, params: Record<string, unknown> = {}) => {
    const mine = ++id;
    await channel.send({ jsonrpc: "2.0", id: mine, method, params: wrap(params) });
    return await channel.reply(mine);
  };
  const ok = (reply: Message) => {
    assert.ok(reply.result, JSON.stringify(reply.error));
    return reply.result as Record<string, unknown>;
  };
  try {
    let capabilities;
    if (era === "2026-07-28") {
      capabilities = ok(await request("server/discover")).capabilities;
    } else {
      capabilities = ok(
        await request("initialize", {
          protocolVersion: era,
          capabilities: {},
          clientInfo: { name: "skills-channel", version: "1" },
        }),
      ).capabilities;
      await channel.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    }
    const extensions = (capabilities as { extensions?: Record<string, unknown> }).extensions;
    assert.deepEqual(extensions?.[EXTENSION], { directoryRead: true });

    const skills = ok(await request("skills/list")).skills as Entry[];
    assert.deepEqual(skills.map((s) => s.uri), ["skill://alpha/SKILL.md", "skill://beta/SKILL.md"]);
    const got = ok(await request("skills/get", { uri: "skill://alpha/SKILL.md" }));
    assert.deepEqual(got.skill, skills[0]);
    // The manifest names what is in the skill, not the link that leads out of it.
    assert.deepEqual(skills[0].resources.map((r) => r.uri), [
      "skill://alpha/SKILL.md",
      "skill://alpha/references/guide.md",
    ]);
    const guide = skills[0].resources[1];
    const read = ok(await request("resources/read", { uri: guide.uri }));
    const [body] = read.contents as { text: string }[];
    assert.equal(body.text, "# Guide\n");
    assert.equal(guide.digest, sha(body.text));

    const walked = ok(await request("resources/directory/read", { uri: "skill://alpha" }));
    assert.deepEqual((walked.resources as { uri: string }[]).map((r) => r.uri), [
      "skill://alpha/SKILL.md",
      "skill://alpha/references",
    ]);
    // Cacheable as the extension's other results are (the 2026-07-28 SDK refuses it otherwise).
    assert.equal(typeof walked.ttlMs, "number");
    assert.equal(walked.cacheScope, "private");
    const missing = await request("skills/get", { uri: "skill://nope/SKILL.md" });
    assert.equal(missing.error?.code, -32602);
    for (const uri of ["skill://alpha/secret.txt", "skill://alpha/../beta/SKILL.md"]) {
      const refused = await request("resources/read", { uri });
      assert.equal(refused.error?.code, era === "2026-07-28" ? -32602 : -32002, uri);
      assert.ok(!JSON.stringify(refused).includes("not for the model"), uri);
    }
  } finally {
    channel.close();
  }
}

const channels = { "SSE (2024-11-05 transport)": sseChannel, "WebSocket": webSocketChannel };
for (const [name, open] of Object.entries(channels)) {
  for (const era of ["2024-11-05", "2025-11-25", "2026-07-28"] as const) {
    test(
      `raw ${name}, ${era}: skills/list, skills/get, directory reads, containment`,
      LINKS,
      async () => {
        await exerciseRaw(await open(), era);
      },
    );
  }
}

for (const [name, open] of Object.entries(channels)) {
  test(
    `raw ${name}, 2026-07-28: subscriptions/listen tells of a SKILL.md's change`,
    LINKS,
    async () => {
      const channel = await open();
      try {
        await channel.send({
          jsonrpc: "2.0",
          id: 1,
          method: "subscriptions/listen",
          params: modern({ notifications: { resourceSubscriptions: ["skill://beta/SKILL.md"] } }),
        });
        const ack = await channel.waitFor(
          (m) => m.method === "notifications/subscriptions/acknowledged",
          20_000,
        );
        assert.deepEqual((ack?.params as { notifications?: unknown })?.notifications, {
          resourceSubscriptions: ["skill://beta/SKILL.md"],
        });
        // The watch starts a moment after the acknowledgement: the change is made again (each
        // time a real one) until it is heard of, never timed.
        const updated = (m: Message) =>
          m.method === "notifications/resources/updated" &&
          m.params?.uri === "skill://beta/SKILL.md";
        let heard: Message | undefined;
        for (let i = 0; i < 30 && !heard; i++) {
          writeFileSync(
            join(skillsDir, "beta", "SKILL.md"),
            `---\nname: beta\ndescription: Beta.\n---\nlisten ${name} ${i}\n`,
          );
          heard = await channel.waitFor(updated, 700);
        }
        assert.ok(heard, "no notification of the change came");
      } finally {
        channel.close();
      }
    },
  );
}

/** The legacy SDK client over a channel: the extension's methods, and a subscribed SKILL.md. */
async function exerciseLegacySdk(transport: LegacySse | WebSocketClientTransport, round: string) {
  const client = new LegacyClient({ name: "skills-channel-sdk", version: "1.0.0" });
  const updated: string[] = [];
  let heard = () => {};
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    updated.push(n.params.uri);
    heard();
  });
  await client.connect(transport);
  try {
    const extensions = (client.getServerCapabilities() as { extensions?: Record<string, unknown> })
      .extensions;
    assert.deepEqual(extensions?.[EXTENSION], { directoryRead: true });
    const listed = await client.request({ method: "skills/list", params: {} }, ResultSchema);
    const skills = (listed as { skills: Entry[] }).skills;
    assert.deepEqual(skills.map((s) => s.uri), ["skill://alpha/SKILL.md", "skill://beta/SKILL.md"]);
    const got = await client.request(
      { method: "skills/get", params: { uri: "skill://beta/SKILL.md" } },
      ResultSchema,
    );
    assert.deepEqual((got as { skill: Entry }).skill, skills[1]);
    const dir = await client.request(
      { method: "resources/directory/read", params: { uri: "skill://alpha/references" } },
      ResultSchema,
    );
    assert.deepEqual((dir as { resources: { uri: string }[] }).resources.map((r) => r.uri), [
      "skill://alpha/references/guide.md",
    ]);
    const read = await client.readResource({ uri: "skill://alpha/references/guide.md" });
    assert.equal((read.contents[0] as { text: string }).text, "# Guide\n");

    // Change notifications come down the same channel. A watch starts a moment after the
    // subscription's reply: the change is made again (each time a real one) until it is heard.
    await client.subscribeResource({ uri: "skill://beta/SKILL.md" });
    for (let i = 0; i < 30 && !updated.includes("skill://beta/SKILL.md"); i++) {
      writeFileSync(
        join(skillsDir, "beta", "SKILL.md"),
        `---\nname: beta\ndescription: Beta.\n---\n${round} ${i}\n`,
      );
      await new Promise<void>((resolve) => {
        heard = resolve;
        setTimeout(resolve, 700);
      });
    }
    assert.ok(updated.includes("skill://beta/SKILL.md"), "no notification of the change came");
  } finally {
    await client.close();
  }
}

test(
  "the legacy SDK's SSEClientTransport lists, gets, reads and subscribes to skills",
  LINKS,
  async () => {
    await exerciseLegacySdk(new LegacySse(new URL(`http://127.0.0.1:${server.port}/sse`)), "sse");
  },
);

test(
  "the legacy SDK's WebSocketClientTransport lists, gets, reads and subscribes to skills",
  LINKS,
  async () => {
    await exerciseLegacySdk(
      new WebSocketClientTransport(new URL(`ws://127.0.0.1:${server.port}/mcp`)),
      "ws",
    );
  },
);

for (const mode of ["legacy", { pin: "2026-07-28" }] as const) {
  const era = mode === "legacy" ? "2025-11-25" : "2026-07-28";
  test(
    `the 2026-07-28 SDK's SSEClientTransport and SkillsClient (${era}) read verified skills`,
    LINKS,
    async () => {
      const client = new Client(
        { name: "skills-channel-modern", version: "1.0.0" },
        { versionNegotiation: { mode } },
      );
      await client.connect(new SSEClientTransport(new URL(`http://127.0.0.1:${server.port}/sse`)));
      try {
        assert.equal(client.getNegotiatedProtocolVersion(), era);
        const skills = new SkillsClient(client);
        assert.equal(skills.supported, true);
        assert.equal(skills.directoryRead, true);
        const listing = await skills.list();
        assert.deepEqual(listing.invalid, []);
        const alpha = listing.skills.find((s) => s.uri === "skill://alpha/SKILL.md");
        assert.ok(alpha, JSON.stringify(listing.skills.map((s) => s.uri)));
        const file = await skills.read(alpha, "references/guide.md");
        assert.equal(file.verified, true);
        assert.equal(file.text, "# Guide\n");
        const main = await skills.read(alpha);
        assert.equal(main.verified, true);
        assert.equal(main.frontmatter?.name, "alpha");
        const dir = await skills.readDirectory("skill://alpha");
        assert.deepEqual(dir.resources.map((r) => r.uri), [
          "skill://alpha/SKILL.md",
          "skill://alpha/references",
        ]);
        const got = await skills.get("skill://beta/SKILL.md");
        assert.equal(got.skill.uri, "skill://beta/SKILL.md");
      } finally {
        await client.close();
      }
    },
  );
}
