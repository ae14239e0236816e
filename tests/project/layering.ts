/**
 * The import graph of the product and its scripts, and the rules it keeps (docs/architecture.md,
 * Layering): no circles; main.ts -> tools -> mcp -> config and never back; tools take only types
 * from config (and its suggest.ts and quote.ts); no family imports another family's `_lib/`, and
 * the shared `tools/_lib/` imports no family, and none imports `tools/_catalog/` (the assembly of
 * what a session offers, above them all); a package (a folder with a mod.ts) is imported
 * through its mod.ts from outside, and its private files (`_`-prefixed) only from inside; mcp/'s
 * packages are layered wire -> tool -> features -> server -> the transports (stdio, http).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";

/** One import of one project file by another, paths from the project's root. */
export interface ImportEdge {
  from: string;
  to: string;
  /** Erased at run time: `import type`, `export type`, or every named binding marked `type`. */
  typeOnly: boolean;
}

/** The folders (and file) whose imports are checked. */
export const CHECKED = ["main.ts", "mcp", "tools", "config", "scripts"];

/** The config/ helpers tools may use as values (docs/architecture.md). */
const CONFIG_VALUES_FOR_TOOLS = new Set([
  "config/suggest.ts",
  "config/quote.ts",
  "config/secrets.ts",
]);

function sourceFiles(root: string, path: string, out: string[] = []): string[] {
  const full = join(root, path);
  if (statSync(full).isDirectory()) {
    for (const name of readdirSync(full).sort()) sourceFiles(root, join(path, name), out);
  } else if (path.endsWith(".ts")) out.push(path);
  return out;
}

/**
 * The relative imports of one file, read from its text: static imports and re-exports that begin
 * a line (so the examples in doc comments are not counted), and dynamic `import("...")` outside
 * comment lines. Specifiers that are not relative (npm, node:) are left out.
 */
export function parseImports(file: string, text: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  const add = (spec: string, typeOnly: boolean) => {
    if (!spec.startsWith("./") && !spec.startsWith("../")) return;
    edges.push({ from: file, to: normalize(join(dirname(file), spec)), typeOnly });
  };
  const statement = /^(import|export)(\s+type)?\s*([^;"'`]*?)\s*from\s*["']([^"'$]+)["']/gm;
  for (const m of text.matchAll(statement)) {
    const bindings = m[3].trim();
    const named = /^\{([^}]*)\}$/.exec(bindings);
    const allTyped = named !== null &&
      named[1].split(",").map((n) => n.trim()).filter(Boolean).every((n) => n.startsWith("type "));
    add(m[4], Boolean(m[2]) || allTyped);
  }
  for (const m of text.matchAll(/^import\s+["']([^"'$]+)["']/gm)) add(m[1], false);
  for (const line of text.split("\n")) {
    if (/^\s*(\*|\/\/)/.test(line)) continue;
    for (const m of line.matchAll(/\bimport\(\s*["']([^"'$]+)["']\s*\)/g)) add(m[1], false);
  }
  return edges;
}

/** Every checked file's imports of other project files. */
export function projectImports(root: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const top of CHECKED) {
    for (const file of sourceFiles(root, top)) {
      edges.push(...parseImports(file, readFileSync(join(root, file), "utf8")));
    }
  }
  return edges;
}

type Layer = "main" | "tools" | "mcp" | "config" | "scripts" | "other";

function layerOf(path: string): Layer {
  if (path === "main.ts") return "main";
  const top = path.split("/")[0];
  return top === "tools" || top === "mcp" || top === "config" || top === "scripts" ? top : "other";
}

/** What each layer may import (scripts/ drive the whole project and may import any of it). */
const MAY_IMPORT: Record<Layer, readonly Layer[]> = {
  main: ["main", "config", "mcp", "tools"],
  tools: ["tools", "mcp", "config"],
  mcp: ["mcp", "config"],
  config: ["config"],
  scripts: ["scripts", "main", "config", "mcp", "tools"],
  other: [],
};

/** `files` for tools/files/x.ts, `_lib` for tools/_lib/x.ts; undefined outside tools/<folder>/. */
function familyOf(path: string): string | undefined {
  const parts = path.split("/");
  return parts[0] === "tools" && parts.length > 2 ? parts[1] : undefined;
}

/**
 * The package a private file belongs to: the folder of a `_`-prefixed file. A file outside that
 * folder must import the package through its mod.ts.
 */
function packageOfPrivate(path: string): string | undefined {
  const name = path.slice(path.lastIndexOf("/") + 1);
  return name.startsWith("_") ? dirname(path) + "/" : undefined;
}

/**
 * The packages among these files: each folder holding a mod.ts, but tools/ itself (its mod.ts is
 * the generated barrel of the families, not a face).
 */
function packagesIn(edges: readonly ImportEdge[]): string[] {
  const files = new Set(edges.flatMap((edge) => [edge.from, edge.to]));
  return [...files]
    .filter((file) => file.endsWith("/mod.ts") && file !== "tools/mod.ts")
    .map((face) => dirname(face) + "/");
}

/**
 * mcp/'s packages from the bottom up: each imports only those before it (the transports, last,
 * import neither each other nor anything above them). Inside mcp/ they reach each other's files
 * directly; a face is for what lies outside mcp/.
 */
const MCP_PACKAGES: readonly (readonly string[])[] = [
  ["wire"],
  ["tool"],
  ["features"],
  ["server"],
  ["stdio", "http"],
];

/** The floor of an mcp/ package's file (0 for mcp/wire/), or undefined outside them. */
function mcpFloorOf(path: string): { name: string; floor: number } | undefined {
  const parts = path.split("/");
  if (parts[0] !== "mcp" || parts.length < 3) return undefined;
  const floor = MCP_PACKAGES.findIndex((names) => names.includes(parts[1]));
  return floor < 0 ? undefined : { name: parts[1], floor };
}

/** Each circle in the graph, once, as the files around it (the first repeated at the end). */
export function circles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    if (!next.has(from)) next.set(from, new Set());
    next.get(from)!.add(to);
  }
  // Tarjan's strongly connected components; a component of more than one file holds a circle.
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    order.set(node, index);
    low.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const to of next.get(node) ?? []) {
      if (!order.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, order.get(to)!));
    }
    if (low.get(node) !== order.get(node)) return;
    const component: string[] = [];
    let top: string;
    do {
      top = stack.pop()!;
      onStack.delete(top);
      component.push(top);
    } while (top !== node);
    const selfLoop = next.get(node)?.has(node) ?? false;
    if (component.length > 1 || selfLoop) found.push(circleIn(new Set(component), next));
  };
  for (const node of [...next.keys()].sort()) if (!order.has(node)) visit(node);
  return found;
}

/** One concrete circle through a component: the shortest way from its first file back to it. */
function circleIn(component: Set<string>, next: Map<string, Set<string>>): string[] {
  const start = [...component].sort()[0];
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const node = queue.shift()!;
    for (const to of [...(next.get(node) ?? [])].sort()) {
      if (!component.has(to)) continue;
      if (to === start) {
        const path = [start];
        for (let at = node; at !== start; at = cameFrom.get(at)!) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!cameFrom.has(to)) {
        cameFrom.set(to, node);
        queue.push(to);
      }
    }
  }
  return [start, start];
}

/** Every broken rule, as a sentence naming the files and what to do instead. */
export function layeringProblems(edges: readonly ImportEdge[]): string[] {
  const problems: string[] = [];
  const packages = packagesIn(edges);
  for (const circle of circles(edges)) {
    problems.push(
      `import circle: ${circle.join(" -> ")}; move what both sides need into a file both import`,
    );
  }
  for (const { from, to, typeOnly } of edges) {
    // Data (package.json, the configuration's JSON Schema) is read by whoever needs it.
    if (!/\.[cm]?[jt]s$/.test(to)) continue;
    const fromLayer = layerOf(from);
    const toLayer = layerOf(to);
    if (!MAY_IMPORT[fromLayer].includes(toLayer)) {
      problems.push(
        `${from} imports ${to}: ${fromLayer} may import only ${
          MAY_IMPORT[fromLayer].join(", ")
        } (main.ts -> tools -> mcp -> config)`,
      );
      continue;
    }
    if (fromLayer === "tools" && toLayer === "config" && !typeOnly) {
      if (!CONFIG_VALUES_FOR_TOOLS.has(to)) {
        problems.push(
          `${from} imports values from ${to}: tools take only types from config/ (the settings ` +
            "in force come through ctx.config), besides config/suggest.ts, quote.ts and secrets.ts",
        );
      }
    }
    const fromFamily = familyOf(from);
    const toFamily = familyOf(to);
    const toLib = to.split("/")[2] === "_lib";
    if (fromFamily && toFamily && fromFamily !== toFamily) {
      if (toFamily === "_catalog") {
        problems.push(
          `${from} imports ${to}: tools/_catalog/ assembles what a session offers from the ` +
            "families and stands above them; only main.ts and scripts/ import it",
        );
      } else if (fromFamily === "_catalog") {
        // The assembly takes from every family what it offers (shell's custom command tools).
      } else if (fromFamily === "_lib") {
        problems.push(
          `${from} imports ${to}: tools/_lib/ is shared by the families and imports none of them`,
        );
      } else if (toFamily !== "_lib" && toLib) {
        problems.push(
          `${from} imports ${to}: the ${fromFamily} family uses the ${toFamily} family's _lib; ` +
            "move what both need into tools/_lib/",
        );
      }
    }
    const pkg = packageOfPrivate(to);
    if (pkg && !from.startsWith(pkg)) {
      problems.push(`${from} imports ${to}, private to ${pkg}: import ${pkg}mod.ts instead`);
      continue;
    }
    const bothInMcp = fromLayer === "mcp" && toLayer === "mcp";
    // The innermost package holding the file: a package inside another has a face of its own.
    const face = packages.filter((dir) => to.startsWith(dir))
      .sort((a, b) => b.length - a.length)[0];
    if (face && !from.startsWith(face) && to !== `${face}mod.ts` && !bothInMcp) {
      problems.push(
        `${from} imports ${to}, behind the face of ${face}: import ${face}mod.ts instead`,
      );
    }
    const fromFloor = mcpFloorOf(from);
    const toFloor = mcpFloorOf(to);
    if (
      fromFloor && toFloor && fromFloor.name !== toFloor.name && toFloor.floor >= fromFloor.floor
    ) {
      problems.push(
        `${from} imports ${to}: mcp/${fromFloor.name}/ may not import mcp/${toFloor.name}/ ` +
          `(mcp/'s packages are layered ${MCP_PACKAGES.map((f) => f.join(", ")).join(" -> ")})`,
      );
    }
  }
  return problems;
}

/**
 * What only one package may do, found in the code's text (comment lines left out): the sandbox
 * alone decides which directory holds a path (no prefix check of one's own, which is wrong on
 * Windows and with nested roots) and opens with the raw no-follow flags; the edit transaction alone
 * writes a file atomically (writeFileAtomic, and the rename's gate, beforeRename).
 */
const ONLY_IN: { pattern: RegExp; home: string; what: string }[] = [
  {
    pattern: /\bstartsWith\(\s*root\b|\.startsWith\(.*\+\s*(sep\b|"\/"|'\/')/,
    home: "tools/_lib/sandbox/",
    what: "decides which directory holds a path by a prefix of its own; ask the sandbox " +
      "(Sandbox.contains, rootOf, holdsRoot, or isWithin for another directory)",
  },
  {
    pattern: /\b(O_NOFOLLOW|O_NONBLOCK|O_NOFOLLOW_ANY|O_DIRECTORY)\b/,
    home: "tools/_lib/sandbox/",
    what: "opens files with flags of its own; open through the sandbox (Sandbox, Dir, openByPath)",
  },
  {
    pattern: /\b(writeFileAtomic|beforeRename)\b/,
    home: "tools/_lib/transaction/",
    what: "writes a file atomically by itself; write through the edit transaction " +
      "(transaction(), or replaceOwnFile for toolhost's own files)",
  },
];

/** The lines of `file` (its text) that do what only another package may (ONLY_IN). */
export function reservedIn(file: string, text: string): string[] {
  const problems: string[] = [];
  for (const [i, line] of text.split("\n").entries()) {
    if (/^\s*(\*|\/\/|\/\*)/.test(line)) continue;
    for (const { pattern, home, what } of ONLY_IN) {
      if (!file.startsWith(home) && pattern.test(line)) {
        problems.push(`${file}:${i + 1} ${what} (only ${home} may): ${line.trim()}`);
      }
    }
  }
  return problems;
}

/** Every checked file's lines that do what only another package may (ONLY_IN). */
export function reservedUses(root: string): string[] {
  return CHECKED.flatMap((top) =>
    sourceFiles(root, top).flatMap((file) =>
      reservedIn(file, readFileSync(join(root, file), "utf8"))
    )
  );
}
