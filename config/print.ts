/**
 * `toolhost --print-config`: the effective configuration as a JSONC file would write it, each
 * setting with its source in a comment beside it. Secrets are hidden; everything else is shown
 * as it is in effect (paths absolute).
 */
import type { Settings } from "./settings.ts";
import { CUSTOM_TOOLS, LEAVES } from "./keys.ts";

const HIDDEN = "********";

/** A key and its value, or a group of them. */
interface Item {
  key: string;
  value?: unknown;
  unset?: boolean;
  source?: string;
  children?: Item[];
}

interface Row {
  text: string;
  source?: string;
}

/** JSON on one line, spaced as a person writes it. */
const json = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(json).join(", ")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).map(([key, item]) =>
      `${JSON.stringify(key)}: ${json(item)}`
    );
    return entries.length ? `{ ${entries.join(", ")} }` : "{}";
  }
  return JSON.stringify(value);
};

function render(items: Item[], depth: number): Row[] {
  const indent = "  ".repeat(depth);
  const rows: Row[] = [];
  const last = items.findLastIndex((item) => !item.unset);
  for (const [index, item] of items.entries()) {
    const comma = index < last ? "," : "";
    const key = JSON.stringify(item.key);
    if (item.unset) {
      rows.push({ text: `${indent}// ${key}: not set`, source: item.source });
    } else if (item.children && item.children.length > 0) {
      rows.push({ text: `${indent}${key}: {`, source: item.source });
      rows.push(...render(item.children, depth + 1));
      rows.push({ text: `${indent}}${comma}` });
    } else {
      const value = item.children ? "{}" : json(item.value);
      rows.push({ text: `${indent}${key}: ${value}${comma}`, source: item.source });
    }
  }
  return rows;
}

/** The settings as file keys, in the schema's order, grouped as files group them. */
function items(settings: Settings, origins: Map<string, string>): Item[] {
  const top: Item[] = [];
  for (const leaf of LEAVES) {
    const keys = leaf.key.split(".");
    let siblings = top;
    for (const group of keys.slice(0, -1)) {
      let parent = siblings.find((item) => item.key === group);
      if (!parent) siblings.push(parent = { key: group, children: [] });
      siblings = parent.children!;
    }
    const value = leaf.get(settings);
    const source = origins.get(leaf.key) ?? "default";
    // An empty secret is one not set (the proxy then comes from HTTPS_PROXY and the like):
    // stars there would read as a secret in force.
    siblings.push(
      value === undefined || (leaf.secret && value === "")
        ? { key: keys.at(-1)!, unset: true, source }
        : { key: keys.at(-1)!, value: leaf.secret ? HIDDEN : value, source },
    );
  }
  const tools: Item[] = Object.entries(settings.customTools).map(([name, tool]) => {
    const source = origins.get(`${CUSTOM_TOOLS}.${name}`) ?? "default";
    const fields = Object.entries(tool).map(([key, value]) => ({
      key,
      value: key === "env"
        ? Object.fromEntries(Object.keys(value as object).map((name) => [name, HIDDEN]))
        : value,
      source,
    }));
    return { key: name, children: fields };
  });
  top.push({ key: CUSTOM_TOOLS, children: tools, source: tools.length ? undefined : "default" });
  return top;
}

/** Rows wider than this get their comment two spaces after them rather than in the column. */
const COMMENT_COLUMN_MAX = 56;

/**
 * The configuration in effect, as JSONC: what `--print-config` prints. `files` (the config files
 * read) are named in a heading comment.
 */
export function formatConfig(
  settings: Settings,
  origins: Map<string, string>,
  files: string[] = [],
): string {
  const rows = [
    { text: "{" },
    ...render(items(settings, origins), 1),
    { text: "}" },
  ];
  const width = Math.min(
    COMMENT_COLUMN_MAX,
    Math.max(...rows.filter((row) => row.source).map((row) => row.text.length)),
  );
  const heading = [
    "// toolhost: the configuration in effect; each setting's source is on its right.",
    `// Config files read: ${files.length ? files.join(", ") : "none"}.`,
  ];
  const body = rows.map((row) =>
    row.source ? `${row.text.padEnd(width)}  // ${row.source}` : row.text
  );
  return [...heading, ...body].join("\n") + "\n";
}
