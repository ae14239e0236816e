/** Log levels (RFC 5424, as MCP names them) and the stderr logger. Nothing here touches stdout. */
import process from "node:process";
import { bounded } from "../../config/quote.ts";

/** Characters of one stderr line at most. */
const MAX_LOG_LINE = 8000;

export const LOG_LEVELS = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
] as const;

export type LogLevel = typeof LOG_LEVELS[number];

export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === "string" && (LOG_LEVELS as readonly string[]).includes(value);
}

/** True when a message at `level` passes a threshold of `min`. */
export function atLeast(level: LogLevel, min: LogLevel): boolean {
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(min);
}

export interface Logger {
  log(level: LogLevel, message: string): void;
}

/** Plain lines on stderr (no colours: clients often show stderr verbatim). */
export function stderrLogger(min: LogLevel): Logger {
  return {
    log(level, message) {
      // Every line is bounded, whatever it quotes: a stack trace fits, a 20 MB value does not.
      if (atLeast(level, min)) {
        process.stderr.write(`toolhost ${level}: ${bounded(message, MAX_LOG_LINE)}\n`);
      }
    },
  };
}

/** Turns log data of any shape into one readable line. */
export function describeLogData(data: unknown): string {
  if (typeof data === "string") return data;
  if (data instanceof Error) return data.stack ?? data.message;
  try {
    return JSON.stringify(data);
  } catch {
    return String(data);
  }
}
