/** What a tool's handler returns, made into the CallToolResult the protocol sends. */
import type { ContentBlock, ToolReturn } from "../tool/tool.ts";

export type ToolResult = {
  content: ContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
};

/** A result that is an error, with one text. */
export function errorResult(text: string): ToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

/** Turns whatever a handler returned into a CallToolResult. */
export function normalize(value: ToolReturn<unknown>): ToolResult {
  if (typeof value === "string") return { content: [{ type: "text", text: value }] };
  if (Array.isArray(value)) return { content: value };
  const result: ToolResult = {
    content: typeof value.content === "string"
      ? [{ type: "text", text: value.content }]
      : value.content ?? [],
  };
  if (value.structured !== undefined) {
    result.structuredContent = value.structured;
    // Clients that ignore structuredContent still see the data.
    if (value.content === undefined) {
      result.content = [{ type: "text", text: JSON.stringify(value.structured) }];
    }
  }
  if (value.isError) result.isError = true;
  return result;
}
