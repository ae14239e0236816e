/**
 * The prompt catalog: prompts/list (fixed prompts and the members of families, found per
 * request) and prompts/get with its arguments checked, in both eras.
 */
import { quoted } from "../../config/quote.ts";
import type { Call } from "../tool/call.ts";
import { handlerFailure } from "./handler_errors.ts";
import { INVALID_PARAMS, isPlainObject, type Params, RpcError } from "../wire/jsonrpc.ts";
import { describeLogData, type Logger } from "../wire/log.ts";
import { pageOf } from "../wire/pages.ts";
import { checkPrompt, type Prompt, type PromptFamily, type PromptSpec } from "./prompt.ts";
import type { ReadContext } from "./resource.ts";
import { cacheable, compare } from "./resources.ts";
import { closest } from "../../config/suggest.ts";
import { answersOf, callDigest, InputRequired, inputRequiredResult } from "../tool/round_trip.ts";
import { MissingClientCapability, type ProgramContext } from "../tool/tool.ts";
import { missingCapability } from "./handler_errors.ts";
import { features } from "../wire/versions.ts";
import type { Watch } from "./watch.ts";

interface PromptOptions {
  program: ProgramContext;
  pageSize: number;
}

/** Families come from the user's files (skills), which change rarely and without notice. */
const PROMPT_LIST_TTL_MS = 60_000;

export class PromptCatalog {
  readonly #fixed: Prompt[];
  readonly #families: PromptFamily[];

  constructor(
    prompts: (Prompt | PromptFamily)[],
    readonly logger: Logger,
    readonly options: PromptOptions,
  ) {
    this.#fixed = prompts.filter((p): p is Prompt => p.kind === "prompt");
    this.#families = prompts.filter((p): p is PromptFamily => p.kind === "prompt_family");
    const names = new Set<string>();
    for (const { name } of this.#fixed) {
      if (names.has(name)) throw new Error(`Two prompts are named ${name}`);
      names.add(name);
    }
  }

  /** What tells when prompts/list may answer differently: the families' list watches. */
  get listWatches(): Watch[] {
    return this.#families.flatMap((f) => f.watchList ? [f.watchList.bind(f)] : []);
  }

  /** Every prompt there is now, by name; a family member never shadows a fixed prompt. */
  async all(ctx: ReadContext): Promise<PromptSpec[]> {
    const byName = new Map<string, PromptSpec>(this.#fixed.map((p) => [p.name, p]));
    for (const family of this.#families) {
      let members: PromptSpec[] = [];
      try {
        members = await family.list(ctx);
      } catch (error) {
        this.logger.log("warning", `listing prompts failed: ${describeLogData(error)}`);
      }
      for (const member of members) {
        try {
          checkPrompt(member);
        } catch (error) {
          this.logger.log("warning", `prompt left out: ${(error as Error).message}`);
          continue;
        }
        if (byName.has(member.name)) {
          this.logger.log("info", `prompt ${member.name} is offered twice; the first one wins`);
          continue;
        }
        byName.set(member.name, member);
      }
    }
    return [...byName.values()].sort((a, b) => compare(a.name, b.name));
  }

  async list(params: Params, call: Call): Promise<Record<string, unknown>> {
    const all = await this.all(call.context(this.options.program));
    const page = pageOf(all, params.cursor, this.options.pageSize, "prompts");
    const titled = call.era === "modern" || features.titles(call.version);
    const result: Record<string, unknown> = {
      prompts: page.items.map((prompt) => {
        const shown: Record<string, unknown> = { name: prompt.name };
        if (titled && prompt.title) shown.title = prompt.title;
        if (prompt.description) shown.description = prompt.description;
        if (prompt.arguments?.length) shown.arguments = prompt.arguments;
        return shown;
      }),
    };
    if (page.nextCursor) result.nextCursor = page.nextCursor;
    return cacheable(result, call, PROMPT_LIST_TTL_MS);
  }

  /** The prompt called `name`, or -32602 naming the ones there are. */
  async find(name: unknown, ctx: ReadContext, method: string): Promise<PromptSpec> {
    if (typeof name !== "string" || name === "") {
      throw new RpcError(
        INVALID_PARAMS,
        `Invalid params: ${method} needs a prompt name (a string)`,
      );
    }
    const all = await this.all(ctx);
    const prompt = all.find((p) => p.name === name);
    if (prompt) return prompt;
    const names = all.map((p) => p.name);
    const guess = closest(name, names);
    throw new RpcError(
      INVALID_PARAMS,
      `Unknown prompt ${quoted(name)}${guess ? ` (did you mean ${guess}?)` : ""}. ` +
        (names.length ? `Available prompts: ${names.join(", ")}` : "No prompts are offered now."),
    );
  }

  async get(params: Params, call: Call): Promise<Record<string, unknown>> {
    const ctx = call.context(this.options.program);
    const prompt = await this.find(params.name, ctx, "prompts/get");
    call.label = prompt.name;
    const args = checkArguments(prompt, params.arguments);
    const digest = () => callDigest("prompts/get", prompt.name, args);
    if (
      call.era === "modern" &&
      (params.requestState !== undefined || params.inputResponses !== undefined)
    ) {
      call.questions.answers = answersOf(params, digest());
    }
    let value;
    try {
      value = await prompt.get(args, ctx);
    } catch (error) {
      // A prompt may ask first, as a tool may: the client answers and asks for it again.
      if (error instanceof InputRequired) {
        return inputRequiredResult(error, digest(), call.questions.answers);
      }
      if (error instanceof MissingClientCapability && call.era === "modern") {
        throw missingCapability(error);
      }
      throw handlerFailure(error, `get prompt ${prompt.name}`, {
        era: call.era,
        logger: this.logger,
      });
    }
    if (typeof value === "string") {
      value = { messages: [{ role: "user" as const, content: { type: "text", text: value } }] };
    }
    const result: Record<string, unknown> = { messages: value.messages };
    const description = value.description ?? prompt.description;
    if (description) result.description = description;
    return result;
  }
}

/** The arguments as strings, every required one present and no unknown one. */
function checkArguments(prompt: PromptSpec, given: unknown): Record<string, string> {
  if (given !== undefined && !isPlainObject(given)) {
    throw new RpcError(
      INVALID_PARAMS,
      "Invalid params: prompts/get params.arguments must be an object of strings",
    );
  }
  const args = given ?? {};
  const declared = prompt.arguments ?? [];
  const takes = declared.length
    ? `it takes ${declared.map((a) => a.name + (a.required ? " (required)" : "")).join(", ")}`
    : "it takes none";
  for (const [name, value] of Object.entries(args)) {
    if (!declared.some((a) => a.name === name)) {
      throw new RpcError(
        INVALID_PARAMS,
        `Invalid params: prompt ${prompt.name} has no argument ${quoted(name)}; ${takes}`,
      );
    }
    if (typeof value !== "string") {
      throw new RpcError(
        INVALID_PARAMS,
        `Invalid params: argument ${name} of prompt ${prompt.name} must be a string`,
      );
    }
  }
  const missing = declared.filter((a) => a.required && args[a.name] === undefined);
  if (missing.length) {
    throw new RpcError(
      INVALID_PARAMS,
      `Invalid params: prompt ${prompt.name} needs the argument${missing.length > 1 ? "s" : ""} ${
        missing.map((a) => a.name).join(", ")
      }; ${takes}`,
    );
  }
  return args as Record<string, string>;
}
