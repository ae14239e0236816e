/**
 * The prompt contract: definePrompt() for one prompt, definePrompts() for a family whose
 * members are found at request time (one per skill), and what their handlers return.
 */
import type { Completer, ReadContext } from "./resource.ts";
import type { ContentBlock, ToolContext } from "../tool/tool.ts";
import type { Watch } from "./watch.ts";

/** What a prompt may use: a read's context, and questions to the client as a tool asks them. */
export type PromptContext =
  & ReadContext
  & Pick<
    ToolContext,
    "canElicit" | "elicit" | "canSample" | "sample" | "canListRoots" | "clientRoots" | "ask"
  >;

export interface PromptArgument {
  name: string;
  description?: string;
  required?: boolean;
}

export interface PromptMessage {
  role: "user" | "assistant";
  content: ContentBlock;
}

/** Text (one user message), or the messages and an optional description. */
export type PromptReturn = string | { description?: string; messages: PromptMessage[] };

export interface PromptSpec {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  /** `args` holds every required argument (checked before) and any optional ones given. */
  get(args: Record<string, string>, ctx: PromptContext): Promise<PromptReturn>;
  complete?: Record<string, Completer>;
  /** Offered only while the tool of this name is (see ResourceSpec.requires). */
  requires?: string;
}

export interface Prompt extends PromptSpec {
  readonly kind: "prompt";
}

export interface PromptFamilySpec {
  /** The prompts there are now, for this request's roots. */
  list(ctx: ReadContext): Promise<PromptSpec[]>;
  /** When present, changes to what list() returns are notified (prompts/list_changed). */
  watchList?: Watch;
  requires?: string;
}

export interface PromptFamily extends PromptFamilySpec {
  readonly kind: "prompt_family";
}

/** Prompt names are what users type after a slash: keep them plain. */
export const PROMPT_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

export function definePrompt(spec: PromptSpec): Prompt {
  checkPrompt(spec);
  return { ...spec, kind: "prompt" };
}

export function definePrompts(spec: PromptFamilySpec): PromptFamily {
  return { ...spec, kind: "prompt_family" };
}

/** Throws when a prompt's name or arguments cannot be offered; families are checked per list. */
export function checkPrompt(spec: PromptSpec): void {
  if (!PROMPT_NAME.test(spec.name)) {
    throw new Error(`Prompt name ${JSON.stringify(spec.name)} must match ${PROMPT_NAME}`);
  }
  const names = (spec.arguments ?? []).map((a) => a.name);
  if (new Set(names).size !== names.length) {
    throw new Error(`Prompt ${spec.name} names an argument twice`);
  }
  for (const name of Object.keys(spec.complete ?? {})) {
    if (!names.includes(name)) {
      throw new Error(`Prompt ${spec.name} has no argument ${name} to complete`);
    }
  }
}
