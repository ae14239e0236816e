/**
 * Cursor pages for every list method: a cursor is an opaque offset into the list, tagged with
 * the list it belongs to so that a tools/list cursor is not taken by prompts/list.
 */
import { INVALID_PARAMS, RpcError } from "./jsonrpc.ts";

export interface Page<T> {
  items: T[];
  nextCursor?: string;
}

export function pageOf<T>(all: T[], cursor: unknown, size: number, list: string): Page<T> {
  const offset = decodeCursor(cursor, all.length, list);
  const end = offset + size;
  const page: Page<T> = { items: all.slice(offset, end) };
  if (end < all.length) page.nextCursor = btoa(`${list}:${end}`);
  return page;
}

function decodeCursor(cursor: unknown, total: number, list: string): number {
  if (cursor === undefined) return 0;
  let offset = NaN;
  if (typeof cursor === "string") {
    try {
      const [tag, digits] = atob(cursor).split(":");
      if (tag === list && /^\d+$/.test(digits ?? "")) offset = Number(digits);
    } catch {
      // not base64: falls through to the error below
    }
  }
  // A list that shrank since the cursor was made also lands here: the client starts over.
  if (!(offset >= 0 && offset < total)) {
    throw new RpcError(
      INVALID_PARAMS,
      "Invalid params: unknown cursor; list again without a cursor to start from the beginning",
    );
  }
  return offset;
}
