import {
  defineTool,
  defineToolHook,
  SessionKey,
  type SessionMemory,
  type Tool,
  ToolError,
  type ToolHook,
} from "../../mcp/tool/mod.ts";
import { type CallbackInfo, Callbacks, MAX_PENDING } from "./_lib/callbacks.ts";
import { oneLine } from "../_lib/text/one_line.ts";
import { duration } from "../_lib/text/units.ts";
import { KEEPS_WORKFLOW_STATE } from "../_lib/declarations/annotations.ts";

const MAX_REPEATS = 100;

/** Which fields each action takes; anything else given is a mistake worth pointing out. */
const FIELDS: Record<string, string[]> = {
  set: ["message", "delay_seconds", "repeat_count"],
  list: [],
  cancel: ["callback_id"],
};

/** Each session's callbacks: another session neither lists them nor gets their reminders. */
const CALLBACKS = new SessionKey(
  "set_callback's callbacks",
  () => new Callbacks(),
  (callbacks) => callbacks.cancelAll(), // the session ended: nobody is left to remind
);

export default setCallbackTool((session) => session.get(CALLBACKS));

/**
 * The tool over a session's callbacks (a test's may run on its own clock), and the hook through
 * which whatever tool the session's model calls next carries the reminders that fired meanwhile,
 * once.
 */
export function setCallbackTool(
  callbacksOf: (session: SessionMemory) => Callbacks,
): [Tool, ToolHook] {
  const reminders = defineToolHook({
    name: "set_callback reminders",
    after(result, ctx) {
      const text = ctx && callbacksOf(ctx.session).takeReminders();
      if (text) result.content.push({ type: "text", text });
    },
  });
  const tool = defineTool({
    name: "set_callback",
    title: "Set a reminder",
    description:
      "Sets a reminder that fires after a delay (check on a background build, come back to " +
      "something, keep a time box). `set` returns its id, `list` shows the pending ones, " +
      "`cancel` takes `callback_id`. A fired reminder, marked ⏰, is attached to the next " +
      "result of any tool you call (it cannot wake you). " +
      `At most ${MAX_PENDING} pending; they last as long as the session.`,
    annotations: KEEPS_WORKFLOW_STATE,
    input: {
      type: "object",
      properties: {
        action: { enum: ["set", "list", "cancel"] },
        message: {
          type: "string",
          minLength: 1,
          maxLength: 2_000,
          description: "set: what the reminder should tell you.",
        },
        delay_seconds: {
          type: "integer",
          minimum: 1,
          maximum: 3600,
          description: "set: seconds until it fires (and between firings).",
        },
        repeat_count: {
          type: "integer",
          minimum: 1,
          maximum: MAX_REPEATS,
          description: "set: how many times it fires (default 1).",
        },
        callback_id: { type: "string", description: "cancel: the id set returned, like cb1." },
      },
      required: ["action"],
      additionalProperties: false,
    },
    output: {
      type: "object",
      properties: {
        action: { enum: ["set", "list", "cancel"] },
        callbacks: {
          type: "array",
          items: {
            type: "object",
            properties: {
              id: { type: "string" },
              message: { type: "string" },
              delaySeconds: { type: "integer" },
              repeatCount: { type: "integer" },
              fired: { type: "integer" },
              nextFireAt: { type: "string" },
            },
            required: ["id", "message", "delaySeconds", "repeatCount", "fired"],
            additionalProperties: false,
          },
        },
      },
      required: ["action", "callbacks"],
      additionalProperties: false,
    },

    run(args, ctx) {
      const callbacks = callbacksOf(ctx.session);
      const extra = Object.keys(args).filter((key) =>
        key !== "action" && !FIELDS[args.action].includes(key)
      );
      if (extra.length) {
        throw new ToolError(
          `action ${args.action} takes no ${extra.join(" or ")}` +
            (FIELDS[args.action].length ? `; it takes ${FIELDS[args.action].join(", ")}` : ""),
        );
      }
      let shown: CallbackInfo[];
      let text: string;
      switch (args.action) {
        case "set": {
          if (args.message === undefined || args.delay_seconds === undefined) {
            throw new ToolError("action set needs `message` and `delay_seconds` (1–3600)");
          }
          const announce = (line: string) => ctx.serverLog("notice", "set_callback", line);
          const callback = callbacks.set(
            args.message,
            args.delay_seconds,
            args.repeat_count ?? 1,
            announce,
          );
          shown = [callback];
          const repeats = callback.repeatCount > 1
            ? `, then every ${duration(callback.delaySeconds * 1000)} until it has fired ` +
              `${callback.repeatCount} times`
            : "";
          text = `Set ${callback.id}: it fires in ${duration(callback.delaySeconds * 1000)} ` +
            `(at ${callback.nextFireAt})${repeats}. Its reminder comes with the next tool result ` +
            `after that. Cancel it with action "cancel" and callback_id "${callback.id}".`;
          break;
        }
        case "list":
          shown = callbacks.list();
          text = shown.length
            ? `${shown.length} pending:\n${
              shown.map((c) => describe(c, callbacks.clock.now())).join("\n")
            }`
            : "No callbacks are pending.";
          break;
        case "cancel": {
          if (args.callback_id === undefined) {
            throw new ToolError("action cancel needs `callback_id` (see action list)");
          }
          const callback = callbacks.cancel(args.callback_id);
          shown = [callback];
          text = `Cancelled ${callback.id} (it had fired ${callback.fired} of ` +
            `${callback.repeatCount} times): ${callback.message}`;
          break;
        }
      }
      return Promise.resolve({
        content: text,
        structured: { action: args.action, callbacks: shown },
      });
    },
  });
  return [tool, reminders];
}

function describe(callback: CallbackInfo, now: number): string {
  const next = Date.parse(callback.nextFireAt!) - now;
  const repeats = callback.repeatCount > 1
    ? `, fired ${callback.fired} of ${callback.repeatCount} times, every ${
      duration(callback.delaySeconds * 1000)
    }`
    : "";
  return `- ${callback.id}: fires in ${duration(next)} (at ${callback.nextFireAt})${repeats}: ${
    oneLine(callback.message, 200)
  }`;
}
