/**
 * What a tool may ask the client during a call: the user (a form), the client's model
 * (sampling) and the client's roots. A legacy client is sent each request in turn and the tool
 * waits; a 2026-07-28 client gets every unanswered question in one input_required result and
 * the tool runs again with the answers (round_trip.ts).
 */
import { type ElicitResult, formFor } from "./elicit.ts";
import { checkAnswer } from "./elicit_check.ts";
import { isPlainObject, type Params } from "../wire/jsonrpc.ts";
import { fitsMethod, type InputMethod, type InputRequest, InputRequired } from "./round_trip.ts";
import {
  type ClientRoot,
  MissingClientCapability,
  type Question,
  type SampleResult,
  ToolError,
} from "./tool.ts";
import { type Era, features } from "../wire/versions.ts";

/** How long a legacy client has to answer (a person may be filling in a form). */
const ANSWER_TIMEOUT_MS = 10 * 60 * 1000;

/** What the questions need from the call they belong to. */
export interface Asker {
  era: Era;
  version: string;
  clientCapabilities: Params;
  signal: AbortSignal;
  /** Sends a request to a legacy client and waits for its result. */
  ask(method: string, params: Params, timeoutMs: number): Promise<Record<string, unknown>>;
  /**
   * A 2026-07-28 call that became a task puts its questions in the task and waits for the
   * answers (tasks/update) instead of ending input_required; undefined for any other call.
   */
  park?(requests: Record<string, InputRequest>): Promise<Record<string, unknown>> | undefined;
}

export type Answer = ElicitResult | SampleResult | ClientRoot[];

export class Questions {
  /** Answers a 2026-07-28 retry brought, by key. */
  answers = new Map<string, unknown>();
  #count = 0;

  constructor(readonly asker: Asker) {}

  /** A key for a question asked without one: ask1, ask2, … in the order the tool asks. */
  nextKey(): string {
    return `ask${++this.#count}`;
  }

  /**
   * Whether the client can show forms to the user: it declared elicitation (`{}` alone meaning
   * forms; a client offering only `url` cannot) and, before 2026, speaks 2025-06-18 or later.
   */
  get canElicit(): boolean {
    const elicitation = this.asker.clientCapabilities.elicitation;
    if (!isPlainObject(elicitation)) return false;
    if (this.asker.era === "legacy" && !features.elicitation(this.asker.version)) return false;
    return elicitation.form !== undefined
      ? isPlainObject(elicitation.form)
      : elicitation.url === undefined;
  }

  get canSample(): boolean {
    return isPlainObject(this.asker.clientCapabilities.sampling);
  }

  get canListRoots(): boolean {
    return isPlainObject(this.asker.clientCapabilities.roots);
  }

  /** Asks everything in `questions` and returns the answers by the same keys. */
  async ask(questions: Record<string, Question>): Promise<Record<string, Answer>> {
    for (const question of Object.values(questions)) this.#check(question);
    if (this.asker.era === "legacy") {
      const answers: Record<string, Answer> = {};
      for (const [key, question] of Object.entries(questions)) {
        answers[key] = await this.#askLegacy(question);
      }
      return answers;
    }
    const answers: Record<string, Answer> = {};
    const missing: Record<string, InputRequest> = {};
    for (const [key, question] of Object.entries(questions)) {
      const answer = this.#answered(key, question);
      if (answer.ok) answers[key] = answer.value;
      else missing[key] = answer.ask;
    }
    if (Object.keys(missing).length > 0) {
      const parked = this.asker.park?.(missing);
      if (!parked) throw new InputRequired(missing);
      for (const [key, answer] of Object.entries(await parked)) this.answers.set(key, answer);
      // Checked as a retry's answers are: one that does not fit is asked again.
      return this.ask(questions);
    }
    return answers;
  }

  #check(question: Question): void {
    const modern = this.asker.era === "modern";
    if ("elicit" in question && !this.canElicit) {
      throw new ToolError(
        "this client cannot show questions to the user (it did not declare form elicitation); ask them in the chat instead",
      );
    }
    if ("sample" in question && !this.canSample) {
      if (modern) throw new MissingClientCapability({ sampling: {} });
      throw new ToolError(
        "this client cannot run prompts through its model (it did not declare sampling)",
      );
    }
    if ("roots" in question && !this.canListRoots) {
      if (modern) throw new MissingClientCapability({ roots: {} });
      throw new ToolError("this client does not offer its roots (it did not declare roots)");
    }
  }

  /** A modern retry's answer to `key`, or the request to send for it. */
  #answered(
    key: string,
    question: Question,
  ): { ok: true; value: Answer } | { ok: false; ask: InputRequest } {
    const request = inputRequestOf(question);
    const answer = this.answers.get(key);
    if (answer === undefined || !fitsMethod(request.method, answer)) {
      return { ok: false, ask: request };
    }
    if ("elicit" in question) {
      const result = answer as ElicitResult;
      if (result.action !== "accept") return { ok: true, value: { action: result.action } };
      const checked = checkAnswer(question.elicit, result.content);
      if (checked.ok) return { ok: true, value: { action: "accept", content: checked.content } };
      // Asked again, saying what was wrong: the retry may answer this key once more.
      this.answers.delete(key);
      return {
        ok: false,
        ask: inputRequestOf({
          elicit: {
            ...question.elicit,
            message: `${question.elicit.message}\n\n(The previous answer could not be used: ${
              checked.problems.join("; ")
            }.)`,
          },
        }),
      };
    }
    if ("roots" in question) return { ok: true, value: rootsOf(answer) };
    return { ok: true, value: answer as SampleResult };
  }

  async #askLegacy(question: Question): Promise<Answer> {
    const ask = (method: InputMethod, params: Params) =>
      this.asker.ask(method, params, ANSWER_TIMEOUT_MS);
    if ("elicit" in question) {
      const form = formFor(this.asker.version, question.elicit);
      const result = await ask("elicitation/create", { ...form.request });
      if (!fitsMethod("elicitation/create", result)) {
        throw new Error("the client answered elicitation/create without a valid action");
      }
      if (result.action !== "accept") return { action: result.action as "decline" | "cancel" };
      const checked = checkAnswer(
        question.elicit,
        form.restore(isPlainObject(result.content) ? result.content : undefined),
      );
      if (!checked.ok) {
        throw new ToolError(
          `the client's answer does not fit the questions asked (${checked.problems.join("; ")})`,
        );
      }
      return { action: "accept", content: checked.content };
    }
    if ("sample" in question) {
      const result = await ask("sampling/createMessage", { ...question.sample });
      if (!fitsMethod("sampling/createMessage", result)) {
        throw new Error(
          "the client answered sampling/createMessage without role, content and model",
        );
      }
      return result as unknown as SampleResult;
    }
    const result = await ask("roots/list", {});
    if (!fitsMethod("roots/list", result)) {
      throw new Error("the client answered roots/list without a list of roots");
    }
    return rootsOf(result);
  }
}

function inputRequestOf(question: Question): InputRequest {
  if ("elicit" in question) {
    return { method: "elicitation/create", params: { mode: "form", ...question.elicit } };
  }
  if ("sample" in question) {
    return { method: "sampling/createMessage", params: { ...question.sample } };
  }
  return { method: "roots/list", params: {} };
}

function rootsOf(answer: unknown): ClientRoot[] {
  const roots = (answer as { roots: Record<string, unknown>[] }).roots;
  return roots.map((root) => ({
    uri: root.uri as string,
    ...(typeof root.name === "string" ? { name: root.name } : {}),
  }));
}
