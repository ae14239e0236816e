/**
 * completion/complete: suggestions for a prompt's argument or a resource template's variable,
 * from the completer its definition gives (none: no suggestions).
 */
import { quoted, quotedJson } from "../../config/quote.ts";
import type { Call } from "../tool/call.ts";
import { handlerFailure } from "./handler_errors.ts";
import { INVALID_PARAMS, isPlainObject, type Params, RpcError } from "../wire/jsonrpc.ts";
import type { Logger } from "../wire/log.ts";
import type { PromptCatalog } from "./prompts.ts";
import type { Completer } from "./resource.ts";
import type { ResourceCatalog } from "./resources.ts";
import type { ProgramContext } from "../tool/tool.ts";

/** The most values one result may carry. */
const MAX_VALUES = 100;

export async function complete(
  params: Params,
  call: Call,
  catalogs: {
    prompts?: PromptCatalog;
    resources?: ResourceCatalog;
    logger: Logger;
    program: ProgramContext;
  },
): Promise<Record<string, unknown>> {
  const { ref, argument } = params;
  if (!isPlainObject(ref) || !isPlainObject(argument)) {
    throw invalid("completion/complete needs params.ref and params.argument (objects)");
  }
  if (typeof argument.name !== "string" || typeof argument.value !== "string") {
    throw invalid("params.argument needs name and value (strings)");
  }
  const context = isPlainObject(params.context) && isPlainObject(params.context.arguments)
    ? params.context.arguments
    : {};
  const others = Object.fromEntries(
    Object.entries(context).filter((entry): entry is [string, string] =>
      typeof entry[1] === "string"
    ),
  );
  const ctx = call.context(catalogs.program);
  let completer: Completer | undefined;
  let what: string;
  if (ref.type === "ref/prompt") {
    if (!catalogs.prompts) throw invalid("this server offers no prompts");
    const prompt = await catalogs.prompts.find(ref.name, ctx, "completion/complete");
    if (!(prompt.arguments ?? []).some((a) => a.name === argument.name)) {
      throw invalid(
        `prompt ${prompt.name} has no argument ${quotedJson(argument.name)}`,
      );
    }
    completer = prompt.complete?.[argument.name];
    what = `complete argument ${argument.name} of prompt ${prompt.name}`;
  } else if (ref.type === "ref/resource") {
    const uri = ref.uri;
    if (typeof uri !== "string") throw invalid("a ref/resource needs uri (a string)");
    const template = catalogs.resources?.templates.find((t) => t.uriTemplate === uri);
    if (!template) {
      throw invalid(
        `no resource template is ${quoted(uri)}; templates: ${
          catalogs.resources?.templates.map((t) => t.uriTemplate).join(", ") || "none"
        }`,
      );
    }
    if (!template.parsed.variables.includes(argument.name)) {
      throw invalid(`template ${uri} has no variable ${quotedJson(argument.name)}`);
    }
    completer = template.complete?.[argument.name];
    what = `complete variable ${argument.name} of ${uri}`;
  } else {
    throw invalid('params.ref.type must be "ref/prompt" or "ref/resource"');
  }
  let values: string[] = [];
  if (completer) {
    try {
      values = await completer(argument.value, ctx, others);
    } catch (error) {
      throw handlerFailure(error, what, { era: call.era, logger: catalogs.logger });
    }
  }
  const completion: Record<string, unknown> = {
    values: values.slice(0, MAX_VALUES),
    total: values.length,
    hasMore: values.length > MAX_VALUES,
  };
  return { completion };
}

function invalid(message: string): RpcError {
  return new RpcError(INVALID_PARAMS, `Invalid params: ${message}`);
}
