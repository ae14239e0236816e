/**
 * Asking the client in the 2026-07-28 era (multi round-trip requests). A modern client cannot
 * be sent requests: a call that needs the user (elicitation/create), the client's model
 * (sampling/createMessage) or its roots (roots/list) ends with an `input_required` result
 * naming every question it could not go on without; the client answers them and calls again,
 * and the handler runs again from the start, finding them answered. The answers so far travel
 * in `requestState`, signed, so that a client cannot forge them or replay them onto another call.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { INVALID_PARAMS, isPlainObject, type Params, RpcError } from "../wire/jsonrpc.ts";

export type InputMethod = "elicitation/create" | "sampling/createMessage" | "roots/list";

export interface InputRequest {
  method: InputMethod;
  params: Record<string, unknown>;
}

/** Thrown (in the modern era) when questions have no answer yet: the call ends input_required. */
export class InputRequired extends Error {
  constructor(readonly requests: Record<string, InputRequest>) {
    super(`input required: ${Object.keys(requests).join(", ")}`);
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
export function callDigest(method: string, name: string, args: unknown): string {
  return createHash("sha256").update(JSON.stringify([method, name, args])).digest("base64url");
}

interface State {
  call: string;
  expires: number;
  /** Answers already accepted, by question key. */
  answers: Record<string, unknown>;
  /** The questions the client was just given, the only ones a retry may answer. */
  asked: Record<string, InputMethod>;
}

function encodeState(
  call: string,
  answers: Record<string, unknown>,
  asked: Record<string, InputMethod>,
): string {
  const state: State = { call, expires: Date.now() + STATE_TTL_MS, answers, asked };
  const payload = Buffer.from(JSON.stringify(state)).toString("base64url");
  return `${payload}.${sign(payload)}`;
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

/** Whether `answer` has the shape a client's reply to `method` must have. */
export function fitsMethod(method: InputMethod, answer: unknown): boolean {
  if (!isPlainObject(answer)) return false;
  switch (method) {
    case "elicitation/create":
      return (answer.action === "accept" || answer.action === "decline" ||
        answer.action === "cancel") &&
        (answer.content === undefined || isPlainObject(answer.content));
    case "sampling/createMessage":
      return (answer.role === "user" || answer.role === "assistant") &&
        isPlainObject(answer.content) && typeof answer.model === "string";
    case "roots/list":
      return Array.isArray(answer.roots) &&
        answer.roots.every((root) => isPlainObject(root) && typeof root.uri === "string");
  }
}

/**
 * The answers a retry brings: those of earlier rounds (from the signed state) and the new ones
 * to the questions just asked. Answers to questions not asked, or of the wrong shape, are left
 * out, and those questions are asked again. A first request (no state) may offer answers ahead
 * of the questions: they count only where a question of that key and kind comes, checked as any
 * answer is (the client would be the one asked anyway); keys nothing asks are ignored.
 */
export function answersOf(params: Params, call: string): Map<string, unknown> {
  if (params.inputResponses !== undefined && !isPlainObject(params.inputResponses)) {
    throw new RpcError(INVALID_PARAMS, "Invalid params: inputResponses must be an object");
  }
  const responses = (params.inputResponses ?? {}) as Record<string, unknown>;
  if (params.requestState === undefined) {
    return new Map(Object.entries(responses).filter(([, answer]) => isPlainObject(answer)));
  }
  const state = verifiedState(params.requestState, call);
  const answers = new Map(Object.entries(state.answers));
  for (const [key, method] of Object.entries(state.asked)) {
    const answer = responses[key];
    if (answers.has(key) || !fitsMethod(method, answer)) continue;
    // Declining or cancelling carries no content, whatever the client sent along.
    const { action } = answer as { action?: unknown };
    const kept = method === "elicitation/create" && action !== "accept" ? { action } : answer;
    answers.set(key, kept);
  }
  return answers;
}

/** The result that ends a call waiting for answers: the questions, and the answers so far. */
export function inputRequiredResult(
  error: InputRequired,
  call: string,
  answers: Map<string, unknown>,
): Record<string, unknown> {
  const asked = Object.fromEntries(
    Object.entries(error.requests).map(([key, request]) => [key, request.method]),
  );
  return {
    resultType: "input_required",
    inputRequests: error.requests,
    requestState: encodeState(call, Object.fromEntries(answers), asked),
  };
}
