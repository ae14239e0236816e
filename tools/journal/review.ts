/**
 * The review app (MCP Apps, SEP-1865): ui://toolhost/review, one self-contained page that
 * history and undo name, and the extension announced so clients know toolhost serves apps.
 * Browsers get the same page at /ui/toolhost/review over --http (mcp/http/app_pages.ts).
 */
import { APP_MIME_TYPE, APPS_EXTENSION } from "../../mcp/tool/mod.ts";
import { defineExtension, defineResource } from "../../mcp/features/mod.ts";
import { REVIEW_URI } from "./_lib/review.ts";
import { REVIEW_PAGE } from "./_lib/review_app/page.generated.ts";

const page = defineResource({
  uri: REVIEW_URI,
  name: "review",
  title: "Review changes",
  description: "An app to review this project's changes as diffs, undo them, and watch " +
    "background processes.",
  mimeType: APP_MIME_TYPE,
  requires: "history",
  read: () =>
    Promise.resolve({
      text: REVIEW_PAGE,
      // No network at all: the host's strictest policy fits.
      meta: { ui: { csp: {}, prefersBorder: true } },
    }),
});

const apps = defineExtension({
  id: APPS_EXTENSION,
  settings: { mimeTypes: [APP_MIME_TYPE] },
  methods: {},
  requires: "history",
});

export default [page, apps];
