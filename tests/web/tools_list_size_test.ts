/**
 * Every tool description costs the user context on every turn: the web tools' entries in
 * tools/list may not grow past what they cost before the proxy, save_to and "all" providers.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import fetchUrl from "../../tools/web/fetch_url.ts";
import webSearch from "../../tools/web/web_search.ts";
import { harness } from "../helpers/in_process.ts";
import { modern } from "../helpers/raw_client.ts";

/** fetch_url (2,853) and web_search (1,633) as listed before those features. */
const BUDGET = 4486;

test("fetch_url and web_search together list in no more bytes than before", async () => {
  const h = harness([fetchUrl, webSearch]);
  const reply = await h.request(1, "tools/list", modern());
  const tools = (reply.result as { tools: { name: string }[] }).tools;
  const sizes = tools.map((tool) => JSON.stringify(tool).length);
  const total = sizes.reduce((a, b) => a + b, 0);
  assert.ok(
    total <= BUDGET,
    `${tools.map((t, i) => `${t.name} ${sizes[i]}`).join(", ")}: ${total} > ${BUDGET}`,
  );
});
