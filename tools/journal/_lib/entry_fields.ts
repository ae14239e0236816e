/**
 * A journal line's fields for a finished call: its id, session (and owner, under OAuth), time,
 * era, tool, outcome and duration, and its arguments bounded, with the configuration's secrets
 * masked.
 */
import { bounded } from "../../../config/quote.ts";
import { secretValues } from "../../../config/secrets.ts";
import type { Settings } from "../../../config/settings.ts";
import type { FinishedCall } from "../../../mcp/tool/mod.ts";
import { type Entry, newId } from "./journal.ts";
import { viewerOf } from "./session.ts";

/** Characters kept of each string argument. */
const ARG_CHARS = 300;

/** The ISO time of the last entry, reused by entries made in the same millisecond. */
let lastTime = { ms: -1, iso: "" };

function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastTime.ms) lastTime = { ms, iso: new Date(ms).toISOString() };
  return lastTime.iso;
}

/** A finished call's journal line, before the recorder adds the files it changed. */
export function entryOf(call: FinishedCall): Entry {
  const { session, owner } = viewerOf(call.ctx);
  return {
    id: newId(),
    session,
    ...(owner ? { owner } : {}),
    time: isoNow(),
    era: call.era,
    tool: call.tool.name,
    args: maskedArguments(call.args, call.ctx.config),
    outcome: call.outcome,
    ms: Math.round(call.durationMs * 10) / 10,
    ...(call.ctx.trace ? { trace: call.ctx.trace } : {}),
  };
}

/** The configuration's secret values, and any argument text holding them, masked. */
export function maskedArguments(
  args: Record<string, unknown>,
  config: Readonly<Settings>,
): Record<string, unknown> {
  const secrets = secretValues(config);
  const mask = (value: unknown): unknown => {
    if (typeof value === "string") {
      let text = value;
      for (const secret of secrets) {
        if (text.includes(secret)) text = text.split(secret).join("***");
      }
      return bounded(text, ARG_CHARS);
    }
    if (Array.isArray(value)) return value.slice(0, 20).map(mask);
    if (value && typeof value === "object") {
      // A plain loop, not entries mapped back: every call passes here, with no array per field.
      const masked: Record<string, unknown> = {};
      for (const key of Object.keys(value)) {
        const field = mask((value as Record<string, unknown>)[key]);
        if (key !== "__proto__") masked[key] = field;
        else {
          Object.defineProperty(masked, key, {
            value: field,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
      }
      return masked;
    }
    return value;
  };
  return mask(args) as Record<string, unknown>;
}
