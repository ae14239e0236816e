/**
 * Resources, templates, prompts and completion through the server in-process, in both eras:
 * exact capabilities, pages, shapes per version, and the error each failure gets.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  definePrompt,
  definePrompts,
  defineResource,
  defineResourceTemplate,
  ResourceNotFound,
} from "../../mcp/features/mod.ts";
import { ToolError } from "../../mcp/tool/mod.ts";
import fixtures from "../fixtures/tools.ts";
import { harness, initializeParams } from "../helpers/in_process.ts";
import { modern } from "../helpers/raw_client.ts";

const notes = defineResource({
  uri: "test://notes",
  name: "notes",
  title: "Notes",
  description: "Some notes.",
  mimeType: "text/markdown",
  read: () => Promise.resolve("# Notes\n"),
});
const logo = defineResource({
  uri: "test://logo",
  name: "logo",
  mimeType: "image/png",
  read: () => Promise.resolve({ blob: btoa("\x89PNG"), mimeType: "image/png" }),
});
const broken = defineResource({
  uri: "test://broken",
  name: "broken",
  read: () => Promise.reject(new Error("the disk is on fire")),
});
const refused = defineResource({
  uri: "test://refused",
  name: "refused",
  read: () => Promise.reject(new ToolError("it is outside the allowed roots")),
});
const ITEMS = ["apple", "apricot", "banana"];
const items = defineResourceTemplate({
  uriTemplate: "test://items/{id}",
  name: "item",
  title: "Item",
  mimeType: "text/plain",
  read: ({ id }) => {
    if (!ITEMS.includes(id)) throw new ResourceNotFound(`no item ${id}`);
    return Promise.resolve(`item ${id}`);
  },
  complete: { id: (value) => Promise.resolve(ITEMS.filter((i) => i.startsWith(value))) },
  list: () => Promise.resolve(ITEMS.map((id) => ({ uri: `test://items/${id}`, name: id }))),
});
const many = defineResourceTemplate({
  uriTemplate: "test://many/{n}",
  name: "many",
  read: ({ n }) => Promise.resolve(n),
  complete: {
    n: (value, _ctx, others) =>
      Promise.resolve(
        Array.from({ length: 150 }, (_, i) => `${others.prefix ?? ""}${value}${i}`),
      ),
  },
});
const greet = definePrompt({
  name: "greet",
  title: "Greet",
  description: "Greets someone.",
  arguments: [
    { name: "who", description: "Whom to greet", required: true },
    { name: "language", description: "In which language" },
  ],
  get: (args) => Promise.resolve(`Say hello to ${args.who} in ${args.language ?? "English"}.`),
  complete: {
    language: (value) =>
      Promise.resolve(["English", "Esperanto", "French"].filter((l) => l.startsWith(value))),
  },
});
const family = definePrompts({
  list: () =>
    Promise.resolve([
      {
        name: "review",
        description: "Reviews code.",
        get: () =>
          Promise.resolve({
            description: "A review",
            messages: [
              { role: "user" as const, content: { type: "text" as const, text: "Review it." } },
              { role: "assistant" as const, content: { type: "text" as const, text: "Sure." } },
            ],
          }),
      },
      // Shadowed by the fixed prompt of the same name; an invalid one is left out.
      { name: "greet", get: () => Promise.resolve("never") },
      { name: "bad name!", get: () => Promise.resolve("never") },
    ]),
});

const everything = {
  resources: [notes, logo, broken, refused],
  templates: [items, many],
  prompts: [greet, family],
};

function offering(pageSize?: number) {
  return harness(fixtures, pageSize, undefined, everything);
}

test("capabilities say exactly what is offered, in both eras and every legacy version", async () => {
  const bare = harness(fixtures);
  const bareInit = await bare.request(1, "initialize", initializeParams("2025-11-25"));
  assert.deepEqual(bareInit.result?.capabilities, { tools: { listChanged: false }, logging: {} });
  const bareDiscover = await bare.request(2, "server/discover", modern());
  assert.deepEqual(bareDiscover.result?.capabilities, { tools: {}, logging: {} });
  for (const method of ["resources/list", "prompts/list", "completion/complete"]) {
    const reply = await bare.request(method, method, modern());
    assert.equal(reply.error?.code, -32601, method);
  }

  // resources/search goes with resources, announced as an extension.
  const search = { experimental: { "resources/search": { maxQueryLength: 200, maxResults: 500 } } };
  const full = { resources: {}, prompts: {}, completions: {}, ...search };
  const h = offering();
  const discover = await h.request(1, "server/discover", modern());
  assert.deepEqual(discover.result?.capabilities, { tools: {}, logging: {}, ...full });
  for (const version of ["2025-11-25", "2025-06-18", "2025-03-26"]) {
    const reply = await offering().request(1, "initialize", initializeParams(version));
    assert.deepEqual(reply.result?.capabilities, {
      tools: { listChanged: false },
      logging: {},
      ...full,
    });
  }
  // 2024-11-05 had completion/complete but no capability naming it.
  const old = offering();
  const reply = await old.request(1, "initialize", initializeParams("2024-11-05"));
  assert.deepEqual(reply.result?.capabilities, {
    tools: { listChanged: false },
    logging: {},
    resources: {},
    prompts: {},
    ...search,
  });
  const done = await old.request(2, "completion/complete", {
    ref: { type: "ref/prompt", name: "greet" },
    argument: { name: "language", value: "E" },
  });
  assert.deepEqual(done.result?.completion, {
    values: ["English", "Esperanto"],
    total: 2,
    hasMore: false,
  });

  const onlyPrompts = harness(fixtures, undefined, undefined, { prompts: [greet] });
  const caps = await onlyPrompts.request(1, "server/discover", modern());
  assert.deepEqual(caps.result?.capabilities, {
    tools: {},
    logging: {},
    prompts: {},
    completions: {},
  });
  const noResources = await onlyPrompts.request(2, "resources/read", modern({ uri: "x:y" }));
  assert.equal(noResources.error?.code, -32601);
});

test("resources/list pages through fixed and listed resources, cacheable only in the modern era", async () => {
  const h = offering(2);
  const uris: string[] = [];
  let cursor: unknown;
  let pages = 0;
  do {
    const reply = await h.request(`p${pages}`, "resources/list", modern(cursor ? { cursor } : {}));
    const result = reply.result!;
    assert.equal(result.resultType, "complete");
    assert.equal(result.ttlMs, 0);
    assert.equal(result.cacheScope, "private");
    uris.push(...(result.resources as { uri: string }[]).map((r) => r.uri));
    cursor = result.nextCursor;
    pages++;
  } while (cursor !== undefined);
  assert.equal(pages, 4);
  assert.deepEqual(uris, [
    "test://broken",
    "test://logo",
    "test://notes",
    "test://refused",
    "test://items/apple",
    "test://items/apricot",
    "test://items/banana",
  ]);
  const bad = await h.request("bad", "resources/list", modern({ cursor: "nope" }));
  assert.equal(bad.error?.code, -32602);
  assert.match(bad.error!.message, /unknown cursor/);
  // A cursor from another list is not taken.
  const tools = await h.request("t", "tools/list", modern());
  const foreign = await h.request("f", "resources/list", modern({ cursor: "dG9vbHM6Mg==" }));
  assert.ok(tools.result);
  assert.equal(foreign.error?.code, -32602);

  const legacy = offering();
  await legacy.request(0, "initialize", initializeParams("2025-11-25"));
  const listed = await legacy.request(1, "resources/list");
  assert.equal(listed.result?.ttlMs, undefined);
  assert.equal(listed.result?.resultType, undefined);
  const first = (listed.result?.resources as Record<string, unknown>[])[2];
  assert.deepEqual(first, {
    uri: "test://notes",
    name: "notes",
    title: "Notes",
    description: "Some notes.",
    mimeType: "text/markdown",
  });
  const older = offering();
  await older.request(0, "initialize", initializeParams("2025-03-26"));
  const untitled = await older.request(1, "resources/list");
  assert.equal((untitled.result?.resources as Record<string, unknown>[])[2].title, undefined);
});

test("resources/templates/list is public and cacheable; titles follow the version", async () => {
  const h = offering(1);
  const page = await h.request(1, "resources/templates/list", modern());
  assert.deepEqual(page.result?.resourceTemplates, [
    { uriTemplate: "test://items/{id}", name: "item", title: "Item", mimeType: "text/plain" },
  ]);
  assert.equal(page.result?.cacheScope, "public");
  assert.equal(page.result?.ttlMs, 300_000);
  const next = await h.request(
    2,
    "resources/templates/list",
    modern({ cursor: page.result?.nextCursor }),
  );
  assert.deepEqual(next.result?.resourceTemplates, [{
    uriTemplate: "test://many/{n}",
    name: "many",
  }]);
  assert.equal(next.result?.nextCursor, undefined);
});

test("resources/read gives text and blobs; failures get each era's code and a clear message", async () => {
  const h = offering();
  const text = await h.request(1, "resources/read", modern({ uri: "test://notes" }));
  assert.deepEqual(text.result?.contents, [
    { uri: "test://notes", mimeType: "text/markdown", text: "# Notes\n" },
  ]);
  assert.equal(text.result?.resultType, "complete");
  assert.equal(text.result?.ttlMs, 0);
  assert.equal(text.result?.cacheScope, "private");
  const blob = await h.request(2, "resources/read", modern({ uri: "test://logo" }));
  assert.deepEqual(blob.result?.contents, [
    { uri: "test://logo", mimeType: "image/png", blob: btoa("\x89PNG") },
  ]);
  const item = await h.request(3, "resources/read", modern({ uri: "test://items/banana" }));
  assert.deepEqual(item.result?.contents, [
    { uri: "test://items/banana", mimeType: "text/plain", text: "item banana" },
  ]);

  const legacy = offering();
  await legacy.request(0, "initialize", initializeParams("2025-06-18"));
  for (const uri of ["test://nothing", "test://items/cherry"]) {
    const modernReply = await h.request(`m-${uri}`, "resources/read", modern({ uri }));
    assert.equal(modernReply.error?.code, -32602, uri);
    assert.match(modernReply.error!.message, /^Resource not found: /);
    assert.deepEqual(modernReply.error?.data, { uri });
    const legacyReply = await legacy.request(`l-${uri}`, "resources/read", { uri });
    assert.equal(legacyReply.error?.code, -32002, uri);
    assert.deepEqual(legacyReply.error?.data, { uri });
    assert.equal(legacyReply.result, undefined);
  }
  const cherry = await legacy.request("c", "resources/read", { uri: "test://items/cherry" });
  assert.match(cherry.error!.message, /no item cherry/);

  const refusal = await legacy.request(4, "resources/read", { uri: "test://refused" });
  assert.equal(refusal.error?.code, -32602);
  assert.equal(
    refusal.error?.message,
    "Cannot read test://refused: it is outside the allowed roots",
  );
  const crash = await legacy.request(5, "resources/read", { uri: "test://broken" });
  assert.equal(crash.error?.code, -32603);
  assert.equal(crash.error?.message, "Cannot read test://broken: the disk is on fire");
  assert.ok(legacy.logs.some((l) => l.level === "error" && /disk is on fire/.test(l.message)));
  for (const params of [{}, { uri: 5 }, { uri: "" }]) {
    const reply = await legacy.request(`bad${JSON.stringify(params)}`, "resources/read", params);
    assert.equal(reply.error?.code, -32602);
    assert.match(reply.error!.message, /needs params.uri/);
  }
});

test("prompts/list and prompts/get: arguments checked, families merged, per-version shapes", async () => {
  const h = offering();
  const list = await h.request(1, "prompts/list", modern());
  assert.deepEqual(list.result?.prompts, [
    {
      name: "greet",
      title: "Greet",
      description: "Greets someone.",
      arguments: [
        { name: "who", description: "Whom to greet", required: true },
        { name: "language", description: "In which language" },
      ],
    },
    { name: "review", description: "Reviews code." },
  ]);
  assert.equal(list.result?.cacheScope, "private");
  assert.equal(typeof list.result?.ttlMs, "number");
  const paged = await offering(1).request(1, "prompts/list", modern());
  assert.equal((paged.result?.prompts as unknown[]).length, 1);
  assert.equal(typeof paged.result?.nextCursor, "string");

  const got = await h.request(
    2,
    "prompts/get",
    modern({
      name: "greet",
      arguments: { who: "Ada", language: "French" },
    }),
  );
  assert.deepEqual(got.result, {
    messages: [{ role: "user", content: { type: "text", text: "Say hello to Ada in French." } }],
    description: "Greets someone.",
    resultType: "complete",
    _meta: got.result?._meta,
  });
  const review = await h.request(3, "prompts/get", modern({ name: "review" }));
  assert.equal((review.result?.messages as unknown[]).length, 2);
  assert.equal(review.result?.description, "A review");

  const legacy = offering();
  await legacy.request(0, "initialize", initializeParams("2025-03-26"));
  const old = await legacy.request(1, "prompts/list");
  assert.equal((old.result?.prompts as Record<string, unknown>[])[0].title, undefined);
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ name: "greet" }, /prompt greet needs the argument who; it takes who \(required\), language/],
    [{ name: "greet", arguments: { language: "French" } }, /needs the argument who/],
    [{ name: "greet", arguments: { who: "Ada", tone: "warm" } }, /has no argument "tone"/],
    [{ name: "greet", arguments: { who: 5 } }, /argument who of prompt greet must be a string/],
    [{ name: "greet", arguments: "who=Ada" }, /must be an object of strings/],
    [
      { name: "gret" },
      /Unknown prompt "gret" \(did you mean greet\?\)\. Available prompts: greet, review/,
    ],
    [{}, /needs a prompt name/],
  ];
  for (const [params, message] of cases) {
    const reply = await legacy.request(JSON.stringify(params), "prompts/get", params);
    assert.equal(reply.error?.code, -32602, JSON.stringify(params));
    assert.match(reply.error!.message, message);
  }
});

test("completion/complete suggests prompt arguments and template variables, at most 100", async () => {
  const h = offering();
  const ask = (id: number, params: Record<string, unknown>) =>
    h.request(id, "completion/complete", modern(params));
  const variable = await ask(1, {
    ref: { type: "ref/resource", uri: "test://items/{id}" },
    argument: { name: "id", value: "ap" },
  });
  assert.deepEqual(variable.result?.completion, {
    values: ["apple", "apricot"],
    total: 2,
    hasMore: false,
  });
  assert.equal(variable.result?.resultType, "complete");
  const capped = await ask(2, {
    ref: { type: "ref/resource", uri: "test://many/{n}" },
    argument: { name: "n", value: "x" },
    context: { arguments: { prefix: "p-" } },
  });
  const completion = capped.result?.completion as { values: string[]; total: number };
  assert.equal(completion.values.length, 100);
  assert.equal(completion.values[0], "p-x0", "other arguments reach the completer");
  assert.equal(completion.total, 150);
  assert.equal((capped.result?.completion as { hasMore: boolean }).hasMore, true);
  const none = await ask(3, {
    ref: { type: "ref/prompt", name: "greet" },
    argument: { name: "who", value: "A" },
  });
  assert.deepEqual(none.result?.completion, { values: [], total: 0, hasMore: false });

  const errors: [Record<string, unknown>, RegExp][] = [
    [
      { ref: { type: "ref/prompt", name: "nope" }, argument: { name: "a", value: "" } },
      /Unknown prompt/,
    ],
    [
      { ref: { type: "ref/prompt", name: "greet" }, argument: { name: "tone", value: "" } },
      /no argument "tone"/,
    ],
    [
      { ref: { type: "ref/resource", uri: "test://x/{y}" }, argument: { name: "y", value: "" } },
      /no resource template is/,
    ],
    [{
      ref: { type: "ref/resource", uri: "test://items/{id}" },
      argument: { name: "x", value: "" },
    }, /has no variable "x"/],
    [
      { ref: { type: "ref/tool", name: "echo" }, argument: { name: "a", value: "" } },
      /ref\.type must be/,
    ],
    [{ ref: { type: "ref/prompt", name: "greet" } }, /needs params\.ref and params\.argument/],
    [{ ref: { type: "ref/prompt", name: "greet" }, argument: { name: "who" } }, /name and value/],
  ];
  let id = 10;
  for (const [params, message] of errors) {
    const reply = await ask(id++, params);
    assert.equal(reply.error?.code, -32602, JSON.stringify(params));
    assert.match(reply.error!.message, message);
  }
});

test("the new methods need a version like every other: no session and no _meta is -32602", async () => {
  const h = offering();
  const reply = await h.request(1, "resources/list");
  assert.equal(reply.error?.code, -32602);
  assert.match(reply.error!.message, /initialize/);
});
