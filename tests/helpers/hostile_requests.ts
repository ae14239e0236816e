/**
 * The binary's whole surface with an oversized string in each place a client can put one: every
 * tool from tools/list with it in each string argument of its input schema in turn (enum ones
 * too), as an unknown argument's name; every method with it in each string parameter; every
 * resource template with it in each variable; every prompt with it as an argument's name and
 * value. Shared by the tests that hold such requests to a bound (echo_walk_test: what is echoed;
 * no_stall_test: how long the server is held).
 *
 * @example
 * ```ts
 * const tools = (await list("tools/list")).tools;
 * for (const { label, args, name } of oversizedToolCalls(tools, huge)) { … }
 * for (const [method, params] of oversizedMethodCalls(huge, root)) { … }
 * ```
 */

export interface ListedTool {
  name: string;
  inputSchema: {
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
  };
}

export interface ListedPrompt {
  name: string;
  arguments?: { name: string; required?: boolean }[];
}

/** A plain value of each JSON Schema type, for the arguments not under test. */
export function plainValue(schema: Record<string, unknown> | undefined): unknown {
  const type = Array.isArray(schema?.type) ? schema.type[0] : schema?.type;
  if (Array.isArray(schema?.enum)) return schema.enum[0];
  switch (type) {
    case "string":
      return "x";
    case "integer":
    case "number":
      return 1;
    case "boolean":
      return false;
    case "array":
      return [];
    default:
      return {};
  }
}

const takesString = (s: Record<string, unknown> | undefined) =>
  s?.type === "string" || (Array.isArray(s?.type) && s.type.includes("string"));

export interface ToolCase {
  label: string;
  name: string;
  args: Record<string, unknown>;
}

/**
 * Each argument set that puts `huge` in one string (or string array) argument of a tool, then
 * one with `huge` as an argument name it does not know. With `enums`, arguments limited to an
 * enum get it too (a value none of the allowed ones).
 */
export function oversizedToolCalls(
  tools: ListedTool[],
  huge: string,
  { enums = false } = {},
): ToolCase[] {
  const calls: ToolCase[] = [];
  for (const tool of tools) {
    const properties = tool.inputSchema.properties ?? {};
    const base: Record<string, unknown> = {};
    for (const name of tool.inputSchema.required ?? []) base[name] = plainValue(properties[name]);
    const add = (label: string, args: Record<string, unknown>) =>
      calls.push({ label: `${tool.name}.${label}`, name: tool.name, args });
    for (const [name, schema] of Object.entries(properties)) {
      const items = schema.items as Record<string, unknown> | undefined;
      const isEnum = Array.isArray(schema.enum);
      if (takesString(schema) && (!isEnum || enums)) {
        add(isEnum ? `${name} (enum)` : name, { ...base, [name]: huge });
      } else if (schema.type === "array" && takesString(items)) {
        add(`${name}[]`, { ...base, [name]: [huge] });
      }
    }
    add("<unknown name>", { ...base, [huge]: "x" });
  }
  return calls;
}

/** Every method with `huge` in each string parameter, and as a method name; `root` is a root. */
export function oversizedMethodCalls(
  huge: string,
  root: string,
  mark: string,
): [string, Record<string, unknown>][] {
  const ref = (type: string) => ({ type, uri: huge, name: huge });
  return [
    [huge, {}],
    ["ping", { [huge]: 1 }],
    ["tools/list", { cursor: huge }],
    ["tools/call", { name: huge, arguments: {} }],
    ["resources/list", { cursor: huge }],
    ["resources/templates/list", { cursor: huge }],
    ["resources/read", { uri: huge }],
    ["resources/read", { uri: `file://${root}/${huge}` }],
    ["resources/read", { uri: `toolhost://${huge}` }],
    ["resources/read", { uri: `file://${root}/../${huge}` }],
    // A directory: refused as not a file, by a URI that holds the huge string.
    ["resources/read", { uri: `file://${root}/${mark.repeat(huge.length)}/..` }],
    ["resources/subscribe", { uri: huge }],
    ["resources/unsubscribe", { uri: huge }],
    ["prompts/list", { cursor: huge }],
    ["prompts/get", { name: huge, arguments: { [huge]: huge } }],
    ["completion/complete", { ref: ref("ref/prompt"), argument: { name: huge, value: huge } }],
    ["completion/complete", { ref: ref("ref/resource"), argument: { name: huge, value: huge } }],
    ["logging/setLevel", { level: huge }],
    ["tasks/get", { taskId: huge }],
    ["tasks/result", { taskId: huge }],
    ["tasks/cancel", { taskId: huge }],
    ["tasks/list", { cursor: huge }],
  ];
}

/** Every resource template with `huge` in each variable (and a traversal in front of it). */
export function oversizedTemplateCalls(
  templates: string[],
  huge: string,
): [string, Record<string, unknown>][] {
  const cases: [string, Record<string, unknown>][] = [];
  for (const uriTemplate of templates) {
    const uri = uriTemplate.replace(/\{[^}]*\}/g, huge);
    cases.push(["resources/read", { uri }], ["resources/subscribe", { uri }]);
    cases.push(["resources/read", { uri: uriTemplate.replace(/\{[^}]*\}/g, `..%2F${huge}`) }]);
    cases.push(["completion/complete", {
      ref: { type: "ref/resource", uri: uriTemplate },
      argument: { name: huge, value: huge },
    }]);
    for (const variable of uriTemplate.match(/\{\+?([^}]*)\}/g) ?? []) {
      cases.push(["completion/complete", {
        ref: { type: "ref/resource", uri: uriTemplate },
        argument: { name: variable.replace(/[{}+]/g, ""), value: huge },
      }]);
    }
  }
  return cases;
}

/** Every prompt with `huge` as an unknown argument, as each argument's value and completion. */
export function oversizedPromptCalls(
  prompts: ListedPrompt[],
  huge: string,
): [string, Record<string, unknown>][] {
  const cases: [string, Record<string, unknown>][] = [];
  for (const prompt of prompts) {
    const required = Object.fromEntries(
      (prompt.arguments ?? []).filter((a) => a.required).map((a) => [a.name, "x"]),
    );
    cases.push(["prompts/get", { name: prompt.name, arguments: { ...required, [huge]: "x" } }]);
    for (const argument of prompt.arguments ?? []) {
      cases.push(["prompts/get", {
        name: prompt.name,
        arguments: { ...required, [argument.name]: huge },
      }]);
      cases.push(["completion/complete", {
        ref: { type: "ref/prompt", name: prompt.name },
        argument: { name: argument.name, value: huge },
      }]);
    }
  }
  return cases;
}
