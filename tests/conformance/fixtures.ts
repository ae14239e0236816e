/**
 * The tools, resources and prompts the official conformance suite
 * (@modelcontextprotocol/conformance) calls by name, compiled only into
 * dist/toolhost-conformance. The suite fixes the names, URIs and argument names; everything else
 * here is ours.
 */
import {
  type ContentBlock,
  defineTool,
  type ElicitRequest,
  type Question,
  ToolError,
} from "../../mcp/tool/mod.ts";
import {
  definePrompt,
  definePrompts,
  defineResource,
  defineResourceTemplate,
  type PromptSpec,
} from "../../mcp/features/mod.ts";

// ---------------------------------------------------------------------------------------------
// Shared data
// ---------------------------------------------------------------------------------------------

/** A 1x1 blue PNG. */
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGOQm/AfAAJ9Aa5x8yHNAAAAAElFTkSuQmCC";
/** Two milliseconds of 8 kHz mono silence. */
const WAV = "UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YRAAAACAgICAgICAgICAgICAgICA";

const NO_INPUT = { type: "object", properties: {} } as const;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function textOf(content: ContentBlock | ContentBlock[] | undefined): string {
  const blocks = Array.isArray(content) ? content : content ? [content] : [];
  return blocks.map((block) => block.type === "text" ? block.text : `[${block.type}]`).join(" ");
}

// ---------------------------------------------------------------------------------------------
// Tools: content types (tools-call-simple-text, -image, -audio, -embedded-resource, -mixed-content)
// ---------------------------------------------------------------------------------------------

const simpleText = defineTool({
  name: "test_simple_text",
  description: "Conformance: answers with one text block.",
  annotations: { readOnlyHint: true },
  input: NO_INPUT,
  run: () => Promise.resolve("Plain text from the conformance fixture."),
});

const imageContent = defineTool({
  name: "test_image_content",
  description: "Conformance: answers with one PNG image block.",
  annotations: { readOnlyHint: true },
  input: NO_INPUT,
  run: () => Promise.resolve([{ type: "image", data: PNG, mimeType: "image/png" }]),
});

const audioContent = defineTool({
  name: "test_audio_content",
  description: "Conformance: answers with one WAV audio block.",
  annotations: { readOnlyHint: true },
  input: NO_INPUT,
  run: () => Promise.resolve([{ type: "audio", data: WAV, mimeType: "audio/wav" }]),
});

const embeddedResource = defineTool({
  name: "test_embedded_resource",
  description: "Conformance: answers with one embedded text resource.",
  annotations: { readOnlyHint: true },
  input: NO_INPUT,
  run: () =>
    Promise.resolve([{
      type: "resource",
      resource: {
        uri: "test://embedded-resource",
        mimeType: "text/plain",
        text: "Text carried inside a tool result.",
      },
    }]),
});

const multipleContentTypes = defineTool({
  name: "test_multiple_content_types",
  description: "Conformance: answers with a text, an image and an embedded JSON resource.",
  annotations: { readOnlyHint: true },
  input: NO_INPUT,
  run: () =>
    Promise.resolve([
      { type: "text", text: "Three kinds of content follow." },
      { type: "image", data: PNG, mimeType: "image/png" },
      {
        type: "resource",
        resource: {
          uri: "test://mixed-content-resource",
          mimeType: "application/json",
          text: JSON.stringify({ fixture: "mixed", blocks: 3 }),
        },
      },
    ]),
});

const errorHandling = defineTool({
  name: "test_error_handling",
  description: "Conformance: always fails, as a tool error (isError) with a message.",
  input: NO_INPUT,
  run: () => Promise.reject(new ToolError("the conformance fixture fails on purpose")),
});

// ---------------------------------------------------------------------------------------------
// Tools: notifications during a call (tools-call-with-logging, tools-call-with-progress)
// ---------------------------------------------------------------------------------------------

const withLogging = defineTool({
  name: "test_tool_with_logging",
  description: "Conformance: logs three info messages while it runs.",
  annotations: { readOnlyHint: true },
  input: NO_INPUT,
  async run(_args, ctx) {
    for (const step of ["starting", "working", "finishing"]) {
      ctx.log("info", `conformance fixture: ${step}`);
      await sleep(30);
    }
    return "logged three messages";
  },
});

const withProgress = defineTool({
  name: "test_tool_with_progress",
  description: "Conformance: reports progress 0, 50 and 100 of 100 while it runs.",
  annotations: { readOnlyHint: true },
  input: NO_INPUT,
  async run(_args, ctx) {
    for (const done of [0, 50, 100]) {
      ctx.progress(done, 100, `${done}% done`);
      await sleep(30);
    }
    return "progress reported";
  },
});

/** For the stateless scenario: logs, which the server must drop unless the request set a level. */
const loggingTool = defineTool({
  name: "test_logging_tool",
  description: "Conformance: logs at several levels and returns.",
  annotations: { readOnlyHint: true },
  input: NO_INPUT,
  run(_args, ctx) {
    for (const level of ["debug", "info", "warning"] as const) {
      ctx.log(level, `conformance fixture: a ${level} message`);
    }
    return Promise.resolve("logged");
  },
});

// ---------------------------------------------------------------------------------------------
// Tools: asking the client (tools-call-sampling, tools-call-elicitation, elicitation-sep1034-*,
// elicitation-sep1330-*)
// ---------------------------------------------------------------------------------------------

const sampling = defineTool({
  name: "test_sampling",
  description: "Conformance: sends `prompt` to the client's model and returns its answer.",
  input: {
    type: "object",
    properties: { prompt: { type: "string", description: "What to ask the model" } },
    required: ["prompt"],
  },
  async run(args, ctx) {
    const answer = await ctx.sample({
      messages: [{ role: "user", content: { type: "text", text: args.prompt } }],
      maxTokens: 100,
    });
    return `The client's model (${answer.model}) said: ${textOf(answer.content)}`;
  },
});

const elicitation = defineTool({
  name: "test_elicitation",
  description: "Conformance: asks the user for a username and an email address.",
  input: {
    type: "object",
    properties: { message: { type: "string", description: "What to tell the user" } },
    required: ["message"],
  },
  async run(args, ctx) {
    const answer = await ctx.elicit({
      message: args.message,
      requestedSchema: {
        type: "object",
        properties: {
          username: { type: "string", title: "Username" },
          email: { type: "string", title: "Email address", format: "email" },
        },
      },
    });
    return `The user chose ${answer.action}: ${JSON.stringify(answer.content ?? {})}`;
  },
});

const elicitationDefaults = defineTool({
  name: "test_elicitation_sep1034_defaults",
  description: "Conformance: asks a form whose every field has a default value (SEP-1034).",
  input: NO_INPUT,
  async run(_args, ctx) {
    const answer = await ctx.elicit({
      message: "Check these details; each field is filled in already.",
      requestedSchema: {
        type: "object",
        properties: {
          name: { type: "string", title: "Name", default: "John Doe" },
          age: { type: "integer", title: "Age", minimum: 0, default: 30 },
          score: { type: "number", title: "Score", default: 95.5 },
          status: {
            type: "string",
            title: "Status",
            enum: ["active", "inactive", "pending"],
            default: "active",
          },
          verified: { type: "boolean", title: "Verified", default: true },
        },
      },
    });
    return `The user chose ${answer.action}: ${JSON.stringify(answer.content ?? {})}`;
  },
});

const elicitationEnums = defineTool({
  name: "test_elicitation_sep1330_enums",
  description: "Conformance: asks a form with every kind of choice field (SEP-1330).",
  input: NO_INPUT,
  async run(_args, ctx) {
    const titled = (prefix: string, titles: string[]) =>
      titles.map((title, i) => ({ const: `${prefix}${i + 1}`, title }));
    const answer = await ctx.elicit({
      message: "Pick from each list.",
      requestedSchema: {
        type: "object",
        properties: {
          untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
          titledSingle: { type: "string", oneOf: titled("value", ["Red", "Green", "Blue"]) },
          legacyEnum: {
            type: "string",
            enum: ["opt1", "opt2", "opt3"],
            enumNames: ["Small", "Medium", "Large"],
          },
          untitledMulti: {
            type: "array",
            minItems: 1,
            maxItems: 3,
            items: { type: "string", enum: ["option1", "option2", "option3"] },
          },
          titledMulti: {
            type: "array",
            minItems: 1,
            maxItems: 3,
            items: { anyOf: titled("value", ["North", "South", "East"]) },
          },
        },
      },
    });
    return `The user chose ${answer.action}: ${JSON.stringify(answer.content ?? {})}`;
  },
});

// ---------------------------------------------------------------------------------------------
// Tools: the rest of the suite's pending and 2026-07-28 scenarios
// ---------------------------------------------------------------------------------------------

/** json-schema-2020-12: the schema must reach tools/list exactly as written. */
const jsonSchema202012 = defineTool({
  name: "json_schema_2020_12_tool",
  description: "Conformance: a tool whose input schema uses JSON Schema 2020-12 keywords.",
  annotations: { readOnlyHint: true },
  input: {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    $defs: {
      address: {
        $anchor: "addressDef",
        type: "object",
        properties: { street: { type: "string" }, city: { type: "string" } },
      },
    },
    properties: {
      name: { type: "string" },
      address: { $ref: "#/$defs/address" },
      contactMethod: { type: "string", enum: ["phone", "email"] },
      phone: { type: "string" },
      email: { type: "string" },
    },
    allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
    if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
    then: { required: ["phone"] },
    else: { required: ["email"] },
    additionalProperties: false,
  },
  run: (args) => Promise.resolve(`Received ${JSON.stringify(args)}`),
});

/** http-custom-header-server-validation: a string argument mirrored in an Mcp-Param header. */
const customHeader = defineTool({
  name: "test_custom_header",
  description:
    "Conformance: echoes `region`, which clients also send as the Mcp-Param-Region header.",
  annotations: { readOnlyHint: true },
  input: {
    type: "object",
    properties: { region: { type: "string", "x-mcp-header": "Region" } },
    required: ["region"],
  },
  run: (args) => Promise.resolve(`region: ${args.region}`),
});

/**
 * server-sse-polling: a call long enough for the HTTP transport to close its SSE stream early and
 * let the client come back for the result (the transport's job, not the tool's).
 */
const reconnection = defineTool({
  name: "test_reconnection",
  description: "Conformance: waits a moment, then answers (SSE polling and resumption).",
  annotations: { readOnlyHint: true },
  input: NO_INPUT,
  async run() {
    await sleep(200);
    return "Finished after the wait: the result reached the client.";
  },
});

/** server-stateless: must be refused with -32021 when the client did not declare sampling. */
const missingCapability = defineTool({
  name: "test_missing_capability",
  description: "Conformance: needs the client's sampling capability.",
  input: NO_INPUT,
  async run(_args, ctx) {
    const answer = await ctx.sample({
      messages: [{ role: "user", content: { type: "text", text: "Say hello." } }],
      maxTokens: 20,
    });
    return textOf(answer.content);
  },
});

/** server-stateless: a question that must come back as input_required, never as a request. */
const streamingElicitation = defineTool({
  name: "test_streaming_elicitation",
  description: "Conformance: asks the user one question.",
  input: NO_INPUT,
  async run(_args, ctx) {
    const answer = await ctx.elicit({
      message: "Which colour do you like?",
      requestedSchema: {
        type: "object",
        properties: { colour: { type: "string" } },
        required: ["colour"],
      },
    });
    return `The user chose ${answer.action}: ${JSON.stringify(answer.content ?? {})}`;
  },
});

const NAME_FORM: ElicitRequest = {
  message: "What is your name?",
  requestedSchema: {
    type: "object",
    properties: { name: { type: "string", title: "Name" } },
    required: ["name"],
  },
};

/** input-required-result-basic-elicitation and the scenarios that reuse its tool. */
const irElicitation = defineTool({
  name: "test_input_required_result_elicitation",
  description: "Conformance (input_required): asks the user's name under the key user_name.",
  input: NO_INPUT,
  async run(_args, ctx) {
    const answer = await ctx.elicit(NAME_FORM, { key: "user_name" });
    if (answer.action !== "accept") return `No name given (${answer.action}).`;
    return `Hello, ${answer.content?.name}!`;
  },
});

const irSampling = defineTool({
  name: "test_input_required_result_sampling",
  description: "Conformance (input_required): asks the client's model a question.",
  input: NO_INPUT,
  async run(_args, ctx) {
    const answer = await ctx.sample({
      messages: [{
        role: "user",
        content: { type: "text", text: "Which river flows through Vienna?" },
      }],
      maxTokens: 100,
    }, { key: "river_question" });
    return `The model answered: ${textOf(answer.content)}`;
  },
});

const irListRoots = defineTool({
  name: "test_input_required_result_list_roots",
  description: "Conformance (input_required): asks the client for its roots.",
  input: NO_INPUT,
  async run(_args, ctx) {
    const roots = await ctx.clientRoots({ key: "client_roots" });
    return `The client has ${roots.length} root(s): ${roots.map((r) => r.uri).join(", ")}`;
  },
});

const irRequestState = defineTool({
  name: "test_input_required_result_request_state",
  description:
    "Conformance (input_required): asks for a confirmation; the answer rides in requestState.",
  input: NO_INPUT,
  async run(_args, ctx) {
    const answer = await ctx.elicit({
      message: "Please confirm.",
      requestedSchema: {
        type: "object",
        properties: { ok: { type: "boolean", title: "Confirmed" } },
        required: ["ok"],
      },
    });
    // Reaching this line on a retry means the server verified the signed requestState.
    return `state-ok: confirmation ${answer.action} ${JSON.stringify(answer.content ?? {})}`;
  },
});

const irMultipleInputs = defineTool({
  name: "test_input_required_result_multiple_inputs",
  description: "Conformance (input_required): asks a form, the model and the roots in one round.",
  input: NO_INPUT,
  async run(_args, ctx) {
    const answers = await ctx.ask({
      user_name: { elicit: NAME_FORM },
      greeting: {
        sample: {
          messages: [{
            role: "user",
            content: { type: "text", text: "Write a one-line greeting." },
          }],
          maxTokens: 50,
        },
      },
      client_roots: { roots: true },
    });
    return `Received answers for: ${Object.keys(answers).sort().join(", ")}`;
  },
});

const irMultiRound = defineTool({
  name: "test_input_required_result_multi_round",
  description: "Conformance (input_required): asks two questions, one round each.",
  input: NO_INPUT,
  async run(_args, ctx) {
    const first = await ctx.elicit(NAME_FORM);
    const second = await ctx.elicit({
      message: "Which city do you live in?",
      requestedSchema: {
        type: "object",
        properties: { city: { type: "string", title: "City" } },
      },
    });
    return `Round answers: ${JSON.stringify([first, second])}`;
  },
});

const irTamperedState = defineTool({
  name: "test_input_required_result_tampered_state",
  description:
    "Conformance (input_required): asks one question; a forged requestState must be refused.",
  input: NO_INPUT,
  async run(_args, ctx) {
    const answer = await ctx.elicit({
      message: "Proceed?",
      requestedSchema: {
        type: "object",
        properties: { ok: { type: "boolean" } },
        required: ["ok"],
      },
    });
    return `Answer: ${answer.action}`;
  },
});

const irCapabilities = defineTool({
  name: "test_input_required_result_capabilities",
  description: "Conformance (input_required): asks only through what the client declared.",
  input: NO_INPUT,
  async run(_args, ctx) {
    const questions: Record<string, Question> = {};
    if (ctx.canElicit) questions.user_name = { elicit: NAME_FORM };
    if (ctx.canSample) {
      questions.summary = {
        sample: {
          messages: [{ role: "user", content: { type: "text", text: "Summarise MCP in a line." } }],
          maxTokens: 50,
        },
      };
    }
    if (Object.keys(questions).length === 0) return "The client declared nothing to ask through.";
    const answers = await ctx.ask(questions);
    return `Asked through: ${Object.keys(answers).sort().join(", ")}`;
  },
});

/**
 * server-stateless: toggles the conformance prompt family, which must tell listen streams
 * (prompts/list_changed).
 */
const promptListeners = new Set<() => void>();
let extraPromptOffered = false;

const triggerPromptChange = defineTool({
  name: "test_trigger_prompt_change",
  description: "Conformance: adds or removes the prompt test_dynamic_prompt.",
  input: NO_INPUT,
  run() {
    extraPromptOffered = !extraPromptOffered;
    for (const changed of promptListeners) changed();
    return Promise.resolve(
      extraPromptOffered ? "test_dynamic_prompt added" : "test_dynamic_prompt removed",
    );
  },
});

// ---------------------------------------------------------------------------------------------
// Resources (resources-*, caching, sep-2164)
// ---------------------------------------------------------------------------------------------

const staticText = defineResource({
  uri: "test://static-text",
  name: "static-text",
  title: "Static text",
  description: "Conformance: a fixed text resource.",
  mimeType: "text/plain",
  read: () => Promise.resolve("Fixed text served by the conformance fixture."),
});

const staticBinary = defineResource({
  uri: "test://static-binary",
  name: "static-binary",
  title: "Static binary",
  description: "Conformance: a fixed PNG image, as base64.",
  mimeType: "image/png",
  read: () => Promise.resolve({ blob: PNG }),
});

const template = defineResourceTemplate({
  uriTemplate: "test://template/{id}/data",
  name: "template-data",
  title: "Data by id",
  description: "Conformance: JSON naming the id taken from the URI.",
  mimeType: "application/json",
  read: (variables) =>
    Promise.resolve(JSON.stringify({ id: variables.id, source: "uri template" })),
  complete: {
    id: (value) => Promise.resolve(["1", "42", "123"].filter((id) => id.startsWith(value))),
  },
});

/** Changes every few seconds while someone is subscribed. */
let watchedVersion = 1;

const watched = defineResource({
  uri: "test://watched-resource",
  name: "watched-resource",
  title: "Watched resource",
  description: "Conformance: text that changes every 3 seconds while subscribed to.",
  mimeType: "text/plain",
  read: () => Promise.resolve(`Version ${watchedVersion} of the watched resource.`),
  watch(_ctx, changed) {
    const timer = setInterval(() => {
      watchedVersion++;
      changed();
    }, 3000);
    return () => clearInterval(timer);
  },
});

// ---------------------------------------------------------------------------------------------
// Prompts (prompts-*, completion-complete, input-required-result-non-tool-request)
// ---------------------------------------------------------------------------------------------

const simplePrompt = definePrompt({
  name: "test_simple_prompt",
  title: "Simple prompt",
  description: "Conformance: a prompt without arguments.",
  get: () => Promise.resolve("Say something kind about conformance tests."),
});

const promptWithArguments = definePrompt({
  name: "test_prompt_with_arguments",
  title: "Prompt with arguments",
  description: "Conformance: a prompt built from two required arguments.",
  arguments: [
    { name: "arg1", description: "The first value", required: true },
    { name: "arg2", description: "The second value", required: true },
  ],
  get: (args) => Promise.resolve(`Compare ${args.arg1} with ${args.arg2}.`),
  complete: {
    arg1: (value) =>
      Promise.resolve(["test", "testing", "tested"].filter((v) => v.startsWith(value))),
  },
});

const promptWithEmbeddedResource = definePrompt({
  name: "test_prompt_with_embedded_resource",
  title: "Prompt with an embedded resource",
  description: "Conformance: a prompt that embeds the resource named by resourceUri.",
  arguments: [{ name: "resourceUri", description: "The URI to embed", required: true }],
  get: (args) =>
    Promise.resolve({
      messages: [
        {
          role: "user",
          content: {
            type: "resource",
            resource: {
              uri: args.resourceUri,
              mimeType: "text/plain",
              text: "Resource text embedded in a prompt.",
            },
          },
        },
        { role: "user", content: { type: "text", text: "Summarise the resource above." } },
      ],
    }),
});

const promptWithImage = definePrompt({
  name: "test_prompt_with_image",
  title: "Prompt with an image",
  description: "Conformance: a prompt that carries an image.",
  get: () =>
    Promise.resolve({
      messages: [
        { role: "user", content: { type: "image", data: PNG, mimeType: "image/png" } },
        { role: "user", content: { type: "text", text: "Describe the colour of this image." } },
      ],
    }),
});

/** input-required-result-non-tool-request: prompts/get that must ask first. */
const promptThatAsks = definePrompt({
  name: "test_input_required_result_prompt",
  title: "Prompt that asks",
  description:
    "Conformance (input_required): asks the user for context before building the prompt.",
  async get(_args, ctx) {
    const answer = await ctx.elicit({
      message: "What should the prompt be about?",
      requestedSchema: {
        type: "object",
        properties: { context: { type: "string", title: "Context" } },
        required: ["context"],
      },
    }, { key: "user_context" });
    return `Write a short note about ${answer.content?.context ?? "anything"}.`;
  },
});

const dynamicPrompt: PromptSpec = {
  name: "test_dynamic_prompt",
  description: "Conformance: offered only after test_trigger_prompt_change.",
  get: () => Promise.resolve("A prompt that comes and goes."),
};

const dynamicPrompts = definePrompts({
  list: () => Promise.resolve(extraPromptOffered ? [dynamicPrompt] : []),
  watchList(_ctx, changed) {
    promptListeners.add(changed);
    return () => promptListeners.delete(changed);
  },
});

// ---------------------------------------------------------------------------------------------
// Tools: tasks (the tasks-* scenarios of the io.modelcontextprotocol/tasks extension)
// ---------------------------------------------------------------------------------------------

/** Waits `ms`, or less when the call is stopped (tasks/cancel). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

const greet = defineTool({
  name: "greet",
  description: "Conformance (tasks): a tool that never runs as a task; greets by name.",
  annotations: { readOnlyHint: true },
  input: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
  run: (args) => Promise.resolve(`Hello, ${args.name}!`),
});

const slowCompute = defineTool({
  name: "slow_compute",
  description: "Conformance (tasks): sleeps `seconds`, then answers; may run as a task.",
  annotations: { readOnlyHint: true },
  taskSupport: "optional",
  input: {
    type: "object",
    properties: { seconds: { type: "number", minimum: 0 }, label: { type: "string" } },
    required: ["seconds"],
  },
  async run(args, ctx) {
    await pause(args.seconds * 1000, ctx.signal);
    if (ctx.signal.aborted) throw new ToolError("stopped before the computation finished");
    return `Computed ${args.label ?? "a result"} after ${args.seconds} s.`;
  },
});

const failingJob = defineTool({
  name: "failing_job",
  description: "Conformance (tasks): runs only as a task and fails (isError) after a second.",
  annotations: { readOnlyHint: true },
  taskSupport: "required",
  input: NO_INPUT,
  async run(_args, ctx) {
    await pause(1000, ctx.signal);
    throw new ToolError("the job failed, as this fixture always does");
  },
});

/** A protocol-level failure: it declares structured output and returns none (-32603). */
const protocolErrorJob = defineTool({
  name: "protocol_error_job",
  description: "Conformance (tasks): runs only as a task and ends in a JSON-RPC error.",
  annotations: { readOnlyHint: true },
  taskSupport: "required",
  input: NO_INPUT,
  output: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
  run: () => Promise.resolve("no structured result, which its output schema requires"),
});

const CONFIRM_FORM: ElicitRequest = {
  message: "Go ahead?",
  requestedSchema: {
    type: "object",
    properties: { confirm: { type: "boolean" }, name: { type: "string" } },
  },
};

const confirmDelete = defineTool({
  name: "confirm_delete",
  description: "Conformance (tasks): a task that asks the user to confirm, then answers.",
  taskSupport: "required",
  input: { type: "object", properties: { filename: { type: "string" } }, required: ["filename"] },
  async run(args, ctx) {
    const answer = await ctx.elicit({ ...CONFIRM_FORM, message: `Delete ${args.filename}?` });
    return answer.action === "accept" && answer.content?.confirm === true
      ? `Deleted ${args.filename} (not really: this is a fixture).`
      : `Kept ${args.filename}.`;
  },
});

const multiInput = defineTool({
  name: "multi_input",
  description: "Conformance (tasks): a task that asks two questions at once.",
  taskSupport: "required",
  input: NO_INPUT,
  async run(_args, ctx) {
    const answers = await ctx.ask({
      first: { elicit: CONFIRM_FORM },
      second: { elicit: CONFIRM_FORM },
    });
    return `Answered: ${Object.keys(answers).sort().join(", ")}`;
  },
});

/** Asks a name synchronously (input_required), then goes on as a task. */
const toolWithTask = defineTool({
  name: "test_tool_with_task",
  description: "Conformance (tasks): asks the user's name, then greets them from a task.",
  taskSupport: "optional",
  input: NO_INPUT,
  async run(_args, ctx) {
    const answer = await ctx.elicit(NAME_FORM, { key: "user_name" });
    await pause(1000, ctx.signal);
    if (answer.action !== "accept") return `No name given (${answer.action}).`;
    return `Hello, ${answer.content?.name}!`;
  },
});

export default [
  simpleText,
  imageContent,
  audioContent,
  embeddedResource,
  multipleContentTypes,
  errorHandling,
  withLogging,
  withProgress,
  loggingTool,
  sampling,
  elicitation,
  elicitationDefaults,
  elicitationEnums,
  jsonSchema202012,
  customHeader,
  reconnection,
  missingCapability,
  streamingElicitation,
  irElicitation,
  irSampling,
  irListRoots,
  irRequestState,
  irMultipleInputs,
  irMultiRound,
  irTamperedState,
  irCapabilities,
  triggerPromptChange,
  staticText,
  staticBinary,
  template,
  watched,
  simplePrompt,
  promptWithArguments,
  promptWithEmbeddedResource,
  promptWithImage,
  promptThatAsks,
  dynamicPrompts,
  greet,
  slowCompute,
  failingJob,
  protocolErrorJob,
  confirmDelete,
  multiInput,
  toolWithTask,
];
