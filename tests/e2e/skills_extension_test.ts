/**
 * The skills extension (SEP-2640) through the compiled binary: announced in capabilities in both
 * eras; skills/list and skills/get give each skill's front matter as written and a manifest whose
 * digests and sizes are those of the bytes resources/read serves; resources/directory/read walks a
 * skill's directories; what leads out of a skill (a linked file, `..`, a project skill whose
 * SKILL.md leads out of the project) is neither listed nor served; a subscribed SKILL.md (legacy
 * resources/subscribe, 2026-07-28 subscriptions/listen) and the list tell of changes. Driven by raw lines (stdio, both eras), raw HTTP (2026-07-28), the
 * official legacy client (@modelcontextprotocol/sdk) and the 2026-07-28 one
 * (@modelcontextprotocol/client, its SkillsClient over stdio and Streamable HTTP). The SSE and
 * WebSocket channels are skills_channels_test.ts's.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client";
// The SDK's "./*" export maps types to "*.js.d.ts", which does not exist; name the types here.
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport as LegacyStdio } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { ResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { startHttpServer } from "../helpers/http_server.ts";
import { postModern } from "../helpers/http_server.ts";
import {
  binary,
  isolatedEnv,
  type Message,
  modern,
  PRODUCT_BINARY,
  RawClient,
} from "../helpers/raw_client.ts";
import { posixOnly } from "../helpers/posix_only.ts";

const EXTENSION = "io.modelcontextprotocol/skills";
/** The fixture links files out of a skill, which Windows allows only some users. */
const LINKS = posixOnly("the fixture uses symbolic links");

type Entry = {
  uri: string;
  frontmatter: Record<string, unknown>;
  resources: { uri: string; digest: string; size: number }[];
};

const clients: RawClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) {
    await c.close();
    assert.deepEqual(c.strayLines, []);
  }
});

const scratch = (name: string) => realpathSync(mkdtempSync(join(tmpdir(), `toolhost-${name}-`)));
const sha = (bytes: Buffer | string) =>
  `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

/** A project with two skills, one with bundled files, and what must not be served. */
function project() {
  const root = scratch("skx-project");
  const outside = scratch("skx-outside");
  writeFileSync(join(outside, "secret.txt"), "not for the model\n");
  const skills = join(root, ".claude", "skills");
  const alpha = join(skills, "alpha");
  mkdirSync(join(alpha, "references"), { recursive: true });
  mkdirSync(join(alpha, "scripts"));
  writeFileSync(
    join(alpha, "SKILL.md"),
    '---\nname: alpha\ndescription: >\n  Folded\n  text.\nlicense: MIT\nmetadata:\n  version: "2.1"\n---\nSee references/guide.md.\n',
  );
  writeFileSync(join(alpha, "references", "guide.md"), "# Guide\n");
  writeFileSync(join(alpha, "scripts", "run.sh"), Buffer.from([0xff, 0xfe, 0x00, 0x01]));
  writeFileSync(join(alpha, ".hidden"), "hidden\n");
  symlinkSync(join(outside, "secret.txt"), join(alpha, "secret.txt"));
  mkdirSync(join(skills, "beta"));
  writeFileSync(join(skills, "beta", "SKILL.md"), "---\nname: beta\ndescription: Beta.\n---\nB\n");
  // A project's skill whose SKILL.md leads out of the project is not a skill at all.
  mkdirSync(join(skills, "escape"));
  writeFileSync(join(outside, "SKILL.md"), "---\nname: escape\ndescription: Out.\n---\nX\n");
  symlinkSync(join(outside, "SKILL.md"), join(skills, "escape", "SKILL.md"));
  return { root, alpha, skills };
}

function start(root: string): RawClient {
  const c = new RawClient(PRODUCT_BINARY, ["--root", root], root, {
    TOOLHOST_STATE_DIR: join(root, ".state"),
  });
  clients.push(c);
  return c;
}

function ok(reply: Message): Record<string, unknown> {
  assert.ok(reply.result, JSON.stringify(reply.error));
  return reply.result;
}

/** Makes a change again and again until `heard` arrives (up to 30 tries, 20 s in all). */
async function untilHeard(c: RawClient, change: () => void, heard: (m: Message) => boolean) {
  const before = c.messages.length;
  for (let i = 0; i < 30; i++) {
    change();
    const found = await c.waitFor(
      (m) => c.messages.indexOf(m) >= before && heard(m),
      700,
      "a change",
    )
      .catch(() => undefined);
    if (found) return;
  }
  assert.fail(`no notification came of the change; stderr:\n${c.stderr}`);
}

/** Every manifest entry matches the bytes resources/read gives for it, and the file on disk. */
async function checkManifest(
  c: RawClient,
  entry: Entry,
  dir: string,
  wrap: (p: Record<string, unknown>) => Record<string, unknown>,
) {
  for (const file of entry.resources) {
    const rel = file.uri.slice(`skill://${entry.frontmatter.name}/`.length);
    const onDisk = readFileSync(join(dir, rel));
    assert.equal(file.digest, sha(onDisk), file.uri);
    assert.equal(file.size, onDisk.length, file.uri);
    const read = ok(await c.request("resources/read", wrap({ uri: file.uri })));
    const [body] = read.contents as { text?: string; blob?: string }[];
    const served = body.text !== undefined
      ? Buffer.from(body.text, "utf8")
      : Buffer.from(body.blob!, "base64");
    assert.equal(sha(served), file.digest, `${file.uri} as served`);
  }
}

for (const era of ["2025-11-25", "2026-07-28"] as const) {
  test(
    `raw lines (${era}): capabilities, skills/list, skills/get, reads and directory reads`,
    LINKS,
    async () => {
      const { root, alpha } = project();
      const c = start(root);
      const wrap = era === "2026-07-28" ? modern : (p: Record<string, unknown>) => p;
      const capabilities = era === "2026-07-28"
        ? ok(await c.request("server/discover", modern())).capabilities
        : ok(await c.initialize(era)).capabilities;
      const caps = capabilities as Record<string, Record<string, unknown>>;
      assert.deepEqual(caps.extensions[EXTENSION], { directoryRead: true });
      assert.ok(caps.resources, "the extension needs the resources capability");

      const listed = ok(await c.request("skills/list", wrap({})));
      assert.equal(listed.resultType, "complete");
      assert.equal(typeof listed.ttlMs, "number");
      assert.equal(listed.cacheScope, "private");
      const skills = listed.skills as Entry[];
      assert.deepEqual(skills.map((s) => s.uri), [
        "skill://alpha/SKILL.md",
        "skill://beta/SKILL.md",
      ]);
      const [entry] = skills;
      assert.deepEqual(entry.frontmatter, {
        name: "alpha",
        description: "Folded text.\n",
        license: "MIT",
        metadata: { version: "2.1" },
      });
      assert.deepEqual(entry.resources.map((r) => r.uri), [
        "skill://alpha/SKILL.md",
        "skill://alpha/references/guide.md",
        "skill://alpha/scripts/run.sh",
      ]);
      await checkManifest(c, entry, alpha, wrap);

      const got = ok(await c.request("skills/get", wrap({ uri: "skill://alpha/SKILL.md" })));
      assert.deepEqual(got.skill, entry);
      assert.equal(got.nextCursor, undefined);
      for (
        const uri of ["skill://escape/SKILL.md", "skill://nope/SKILL.md", "skill://alpha/x.md"]
      ) {
        const refused = await c.request("skills/get", wrap({ uri }));
        assert.equal(refused.error?.code, -32602, uri);
      }

      for (
        const uri of [
          "skill://alpha/secret.txt",
          "skill://alpha/.hidden",
          "skill://alpha/../beta/SKILL.md",
          "skill://alpha/references/../SKILL.md",
          "skill://escape/SKILL.md",
        ]
      ) {
        const refused = await c.request("resources/read", wrap({ uri }));
        // resources/read's own "not found": -32002 before 2026-07-28, -32602 from it.
        assert.equal(refused.error?.code, era === "2026-07-28" ? -32602 : -32002, uri);
        assert.ok(!JSON.stringify(refused).includes("not for the model"));
      }

      const top = ok(await c.request("resources/directory/read", wrap({ uri: "skill://alpha" })));
      assert.deepEqual(
        (top.resources as { uri: string; mimeType?: string }[]).map((r) => [r.uri, r.mimeType]),
        [
          ["skill://alpha/SKILL.md", "text/markdown"],
          ["skill://alpha/references", "inode/directory"],
          ["skill://alpha/scripts", "inode/directory"],
        ],
      );
      const sub = ok(
        await c.request("resources/directory/read", wrap({ uri: "skill://alpha/references" })),
      );
      assert.deepEqual((sub.resources as { uri: string }[]).map((r) => r.uri), [
        "skill://alpha/references/guide.md",
      ]);
      for (const uri of ["skill://alpha/SKILL.md", "skill://alpha/nope", "file:///etc"]) {
        const refused = await c.request("resources/directory/read", wrap({ uri }));
        assert.equal(refused.error?.code, -32602, uri);
      }
    },
  );
}

test(
  "raw lines (2025-11-25): a subscribed SKILL.md and the list tell of changes",
  LINKS,
  async () => {
    const { root, skills } = project();
    const c = start(root);
    await c.initialize("2025-11-25");
    // The list is watched once someone listed it.
    ok(await c.request("resources/list", {}));
    ok(await c.request("resources/subscribe", { uri: "skill://beta/SKILL.md" }));
    // A watch starts a moment after the subscription's reply: the change is made again until
    // it is heard of (each time a real change), never timed.
    let round = 0;
    await untilHeard(
      c,
      () =>
        writeFileSync(
          join(skills, "beta", "SKILL.md"),
          `---\nname: beta\ndescription: Changed.\n---\n${++round}\n`,
        ),
      (m) =>
        m.method === "notifications/resources/updated" && m.params?.uri === "skill://beta/SKILL.md",
    );
    await untilHeard(
      c,
      () => {
        const dir = join(skills, `gamma${++round}`);
        mkdirSync(dir);
        writeFileSync(join(dir, "SKILL.md"), `---\nname: gamma${round}\ndescription: G.\n---\n`);
      },
      (m) => m.method === "notifications/resources/list_changed",
    );
    const listed = ok(await c.request("skills/list", {}));
    assert.ok((listed.skills as Entry[]).some((s) => s.uri.startsWith("skill://gamma")));
    const got = ok(await c.request("skills/get", { uri: "skill://beta/SKILL.md" }));
    assert.equal((got.skill as Entry).frontmatter.description, "Changed.");
  },
);

test("raw HTTP (2026-07-28): skills/list and skills/get on the HTTP transport", LINKS, async () => {
  const { root } = project();
  const server = await startHttpServer(PRODUCT_BINARY, ["--root", root], {
    TOOLHOST_STATE_DIR: join(root, ".state"),
  }, root);
  try {
    const listed = await (await postModern(server.url, 1, "skills/list")).json();
    assert.deepEqual(
      (listed.result.skills as Entry[]).map((s) => s.uri),
      ["skill://alpha/SKILL.md", "skill://beta/SKILL.md"],
    );
    const got = await (await postModern(server.url, 2, "skills/get", {
      uri: "skill://beta/SKILL.md",
    })).json();
    assert.equal(got.result.skill.frontmatter.name, "beta");
    const missing = await (await postModern(server.url, 3, "skills/get", {
      uri: "skill://nope/SKILL.md",
    })).json();
    assert.equal(missing.error.code, -32602);
  } finally {
    await server.stop();
  }
});

test(
  "the legacy SDK client sees the extension and lists, gets and reads skills",
  LINKS,
  async () => {
    const { root } = project();
    const client = new LegacyClient({ name: "skills-legacy", version: "1.0.0" });
    await client.connect(
      new LegacyStdio({
        command: binary(PRODUCT_BINARY),
        args: ["--root", root],
        cwd: root,
        env: { ...isolatedEnv(), TOOLHOST_STATE_DIR: join(root, ".state") },
        stderr: "pipe",
      }),
    );
    try {
      const extensions =
        (client.getServerCapabilities() as { extensions?: Record<string, unknown> })
          .extensions;
      assert.deepEqual(extensions?.[EXTENSION], { directoryRead: true });
      const listed = await client.request({ method: "skills/list", params: {} }, ResultSchema);
      const skills = (listed as { skills: Entry[] }).skills;
      assert.deepEqual(skills.map((s) => s.frontmatter.name), ["alpha", "beta"]);
      const got = await client.request(
        { method: "skills/get", params: { uri: "skill://alpha/SKILL.md" } },
        ResultSchema,
      );
      assert.deepEqual((got as { skill: Entry }).skill, skills[0]);
      const read = await client.readResource({ uri: "skill://alpha/references/guide.md" });
      assert.equal((read.contents[0] as { text: string }).text, "# Guide\n");
    } finally {
      await client.close();
    }
  },
);

/** A Standard Schema that takes any result as it is (the extension's types are not the SDK's). */
const anyResult = {
  "~standard": {
    version: 1 as const,
    vendor: "toolhost-test",
    validate: (value: unknown) => ({ value: value as Record<string, unknown> }),
  },
};

test(
  "the 2026-07-28 SDK client sees the extension and lists, gets and reads skills",
  LINKS,
  async () => {
    const { root } = project();
    const client = new Client(
      { name: "skills-modern", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await client.connect(
      new StdioClientTransport({
        command: binary(PRODUCT_BINARY),
        args: ["--root", root],
        cwd: root,
        env: { ...isolatedEnv(), TOOLHOST_STATE_DIR: join(root, ".state") },
        stderr: "pipe",
      }),
    );
    try {
      const extensions =
        (client.getServerCapabilities() as { extensions?: Record<string, unknown> })
          .extensions;
      assert.deepEqual(extensions?.[EXTENSION], { directoryRead: true });
      const listed = await client.request({ method: "skills/list", params: {} }, anyResult);
      const skills = (listed as { skills: Entry[] }).skills;
      assert.deepEqual(skills.map((s) => s.frontmatter.name), ["alpha", "beta"]);
      // Through the SDK's SkillsClient, which checks each result's shape (ttlMs, cacheScope).
      const dir = await new SkillsClient(client).readDirectory("skill://alpha/scripts");
      assert.deepEqual(dir.resources.map((r) => r.name), ["run.sh"]);
      const read = await client.readResource({ uri: "skill://alpha/SKILL.md" });
      assert.match((read.contents[0] as { text: string }).text, /^---\nname: alpha/);
    } finally {
      await client.close();
    }
  },
);

test(
  "raw lines (2026-07-28): subscriptions/listen tells of a skill file's change",
  LINKS,
  async () => {
    const { root, skills } = project();
    const c = start(root);
    c.start(
      "subscriptions/listen",
      modern({ notifications: { resourceSubscriptions: ["skill://beta/SKILL.md"] } }),
      "listen-skill",
    );
    const ack = await c.waitFor((m) => m.method === "notifications/subscriptions/acknowledged");
    assert.deepEqual((ack.params as { notifications: unknown }).notifications, {
      resourceSubscriptions: ["skill://beta/SKILL.md"],
    });
    let round = 0;
    await untilHeard(
      c,
      () =>
        writeFileSync(
          join(skills, "beta", "SKILL.md"),
          `---\nname: beta\ndescription: Again.\n---\n${++round}\n`,
        ),
      (m) =>
        m.method === "notifications/resources/updated" && m.params?.uri === "skill://beta/SKILL.md",
    );
  },
);

test(
  "the 2026-07-28 SDK client's SkillsClient over Streamable HTTP lists, reads and walks skills",
  LINKS,
  async () => {
    const { root } = project();
    const server = await startHttpServer(PRODUCT_BINARY, ["--root", root], {
      TOOLHOST_STATE_DIR: join(root, ".state"),
    }, root);
    const client = new Client(
      { name: "skills-modern-http", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
      const skills = new SkillsClient(client);
      assert.equal(skills.supported, true);
      const listing = await skills.list();
      assert.deepEqual(listing.skills.map((s) => s.uri), [
        "skill://alpha/SKILL.md",
        "skill://beta/SKILL.md",
      ]);
      const guide = await skills.read(listing.skills[0], "references/guide.md");
      assert.equal(guide.verified, true);
      assert.equal(guide.text, "# Guide\n");
      const dir = await skills.readDirectory("skill://alpha/references");
      assert.deepEqual(dir.resources.map((r) => r.uri), ["skill://alpha/references/guide.md"]);
      assert.equal(dir.cacheScope, "private");
    } finally {
      await client.close();
      await server.stop();
    }
  },
);
