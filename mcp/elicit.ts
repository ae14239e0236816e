/**
 * Asking the user through the client (elicitation), in both eras. A legacy client gets an
 * `elicitation/create` request and the tool waits for the answer. A 2026-07-28 client cannot be
 * sent requests: the call ends with an `input_required` result, the client asks the user and
 * calls again with the answers, and the tool runs again from the start, finding its questions
 * answered. Earlier answers travel in `requestState`, signed so a client cannot forge them.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { INVALID_PARAMS, isPlainObject, type Params, RpcError } from "./jsonrpc.ts";

/** A form to show the user: a message and a flat JSON Schema of what to fill in. */
export interface ElicitRequest {
  message: string;
  requestedSchema: {
    type: "object";
    properties: Record<string, Record<string, unknown>>;
    required?: string[];
  };
}

export interface ElicitResult {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, unknown>;
}

/** Thrown (in the modern era) when a question has no answer yet: the call ends input_required. */
export class InputRequired extends Error {
  constructor(readonly key: string, readonly request: ElicitRequest) {
    super(`input required: ${key}`);
  }
}

/** How long a modern client has to come back with the answers. */
const STATE_TTL_MS = 60 * 60 * 1000;

let secret: Buffer | undefined;

function sign(payload: string): string {
  secret ??= randomBytes(32);
  return createHmac("sha256", secret).update(payload).digest("base64url");
}

/** A digest of what a call asked for, so an answer cannot be replayed onto another call. */
export function callDigest(tool: string, args: unknown): string {
  return createHash("sha256").update(JSON.stringify([tool, args])).digest("base64url");
}

interface State {
  call: string;
  expires: number;
  /** Answers already accepted, by question key. */
  answers: Record<string, ElicitResult>;
  /** The question the client was just given, the only one a retry may answer. */
  asked: string;
}

/** The signed `requestState` carrying the answers so far and the question now asked. */
export function encodeState(
  call: string,
  answers: Record<string, ElicitResult>,
  asked: string,
): string {
  const state: State = { call, expires: Date.now() + STATE_TTL_MS, answers, asked };
  const payload = Buffer.from(JSON.stringify(state)).toString("base64url");
  return `${payload}.${sign(payload)}`;
}

function isElicitResult(value: unknown): value is ElicitResult {
  return isPlainObject(value) &&
    (value.action === "accept" || value.action === "decline" || value.action === "cancel") &&
    (value.content === undefined || isPlainObject(value.content));
}

function verifiedState(requestState: unknown, call: string): State {
  const [payload, mac] = typeof requestState === "string" ? requestState.split(".") : [];
  const expected = payload ? Buffer.from(sign(payload)) : undefined;
  const given = Buffer.from(mac ?? "");
  if (expected && given.length === expected.length && timingSafeEqual(given, expected)) {
    const state: State = JSON.parse(Buffer.from(payload, "base64url").toString());
    if (state.call === call && state.expires >= Date.now()) return state;
  }
  throw new RpcError(
    INVALID_PARAMS,
    "Invalid params: requestState is not valid for this call (altered, expired, or from another call or server run); call again without it",
  );
}

/**
 * The answers a retried call brings: those its signed `requestState` carries (which must be ours,
 * unexpired and for this very call), plus the client's answer to the one question it was just
 * asked. Answers to anything else are ignored, and an answer once given is never replaced.
 */
export function answersOf(params: Params, call: string): Map<string, ElicitResult> {
  // Answers without the state they answer cannot be trusted: the questions are asked again.
  if (params.requestState === undefined) return new Map();
  const state = verifiedState(params.requestState, call);
  const answers = new Map(Object.entries(state.answers));
  if (params.inputResponses !== undefined && !isPlainObject(params.inputResponses)) {
    throw new RpcError(INVALID_PARAMS, "Invalid params: inputResponses must be an object");
  }
  const answer = (params.inputResponses as Record<string, unknown> | undefined)?.[state.asked];
  if (isElicitResult(answer) && !answers.has(state.asked)) {
    // Declining or cancelling carries no content, whatever the client sent along.
    answers.set(state.asked, answer.action === "accept" ? answer : { action: answer.action });
  }
  return answers;
}

type Choice = { const: string; title: string };

/**
 * The form as a client of `version` can show it, and how to turn its answer back into the shape
 * asked for. 2025-06-18 forms know neither titled choices (`oneOf`) nor multiple choice (arrays):
 * titled choices become `enum` with `enumNames`, and each option of a multiple choice a checkbox.
 */
export function formFor(version: string, request: ElicitRequest): {
  request: ElicitRequest;
  restore(content: Record<string, unknown> | undefined): Record<string, unknown> | undefined;
} {
  if (version !== "2025-06-18") return { request, restore: (content) => content };
  const properties: Record<string, Record<string, unknown>> = {};
  const multiple = new Map<string, string[]>();
  for (const [key, schema] of Object.entries(request.requestedSchema.properties)) {
    const items = schema.items as { anyOf?: Choice[]; enum?: string[] } | undefined;
    if (schema.type === "array" && items) {
      const choices = items.anyOf ??
        (items.enum ?? []).map((value) => ({ const: value, title: value }));
      multiple.set(key, choices.map((choice) => choice.const));
      choices.forEach((choice, i) => {
        properties[`${key}__${i}`] = {
          type: "boolean",
          title: `${schema.title ?? key}: ${choice.title}`,
          default: false,
        };
      });
    } else if (Array.isArray(schema.oneOf)) {
      const { oneOf, ...rest } = schema;
      properties[key] = {
        ...rest,
        enum: (oneOf as Choice[]).map((c) => c.const),
        enumNames: (oneOf as Choice[]).map((c) => c.title),
      };
    } else {
      properties[key] = schema;
    }
  }
  const required = request.requestedSchema.required?.filter((key) => !multiple.has(key));
  return {
    request: { ...request, requestedSchema: { type: "object", properties, required } },
    restore(content) {
      if (!content) return content;
      const restored: Record<string, unknown> = {};
      const generated = new Set(
        [...multiple].flatMap(([key, consts]) => consts.map((_, i) => `${key}__${i}`)),
      );
      for (const [key, value] of Object.entries(content)) {
        if (!generated.has(key)) restored[key] = value;
      }
      for (const [key, consts] of multiple) {
        restored[key] = consts.filter((_, i) => content[`${key}__${i}`] === true);
      }
      return restored;
    },
  };
}
