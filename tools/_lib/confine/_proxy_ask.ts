/**
 * Asking the person about a host a command reaches for that `sandbox.allow_network` does not
 * list, while the request waits: allow for this command, for this session, always (written to
 * the user config), or deny. Requests for one host share one question; no answer in time is a
 * deny, but an answer that comes later still counts for "session" and "always".
 */
import { bounded } from "../../../config/quote.ts";
import type { ElicitRequest } from "../../../mcp/tool/mod.ts";
import type { ToolContext } from "../../../mcp/tool/mod.ts";

/** What the session's network needs of a call (a ToolContext has it all). */
export type NetworkContext = Pick<
  ToolContext,
  "config" | "session" | "signal" | "onAbort" | "log" | "canElicitMidCall" | "elicit"
>;

export type Decision = "once" | "session" | "always" | "deny";

/** How a question ended for the requests waiting on it. */
export type Outcome =
  | { decision: Decision }
  | { unanswered: string }
  /** The call that asked ended first: a waiting request from another call asks again. */
  | { withdrawn: true };

/** How long the person has to answer before the request is refused. */
export const ANSWER_MS = 2 * 60 * 1000;

export interface Asking {
  /** What the waiting requests get: an answer, a deny at the deadline, or withdrawn. */
  outcome: Promise<Outcome>;
  /** The person's answer whenever it comes (after the deadline too); undefined if none. */
  late: Promise<Decision | undefined>;
}

/**
 * The form: the host, the command, and the four choices (three when there is no user file to
 * write "always" to).
 */
export function questionFor(
  shown: string,
  entry: string,
  what: string | undefined,
  userConfigFile: string | undefined,
): ElicitRequest {
  const choices = [
    { const: "once", title: "Allow for this command" },
    { const: "session", title: "Allow for this session" },
    ...(userConfigFile
      ? [{
        const: "always",
        title: `Always allow (adds "${entry}" to sandbox.allow_network in ${userConfigFile})`,
      }]
      : []),
    { const: "deny", title: "Deny" },
  ];
  const command = what ? `\n\nThe command: ${bounded(what, 300)}` : "";
  return {
    message: `A command wants to reach ${shown}, which sandbox.allow_network does not list.` +
      command,
    requestedSchema: {
      type: "object",
      properties: {
        decision: { type: "string", title: `Network access to ${shown}`, oneOf: choices },
      },
      required: ["decision"],
    },
  };
}

/** Puts the question through `ctx`'s client, with the deadline and the call's end. */
export function ask(ctx: NetworkContext, request: ElicitRequest, answerMs = ANSWER_MS): Asking {
  const late = ctx.elicit(request).then((result): Decision | undefined => {
    if (result.action !== "accept") return "deny";
    const decision = result.content?.decision;
    return decision === "once" || decision === "session" || decision === "always" ||
        decision === "deny"
      ? decision
      : undefined;
  });
  const outcome = new Promise<Outcome>((resolve) => {
    let stop = () => {};
    const settle = (outcome: Outcome) => {
      clearTimeout(timer);
      stop();
      resolve(outcome);
    };
    const timer = setTimeout(
      () => settle({ unanswered: `the person did not answer within ${answerMs / 1000} s` }),
      answerMs,
    );
    stop = ctx.onAbort(() => settle({ withdrawn: true }));
    late.then(
      (decision) =>
        settle(decision ? { decision } : { unanswered: "the answer was not one of the choices" }),
      (error) =>
        settle(
          ctx.signal.aborted
            ? { withdrawn: true }
            : { unanswered: `the question could not be asked (${(error as Error).message})` },
        ),
    );
  });
  return { outcome, late: late.catch(() => undefined) };
}
