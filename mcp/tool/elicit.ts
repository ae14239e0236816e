/**
 * The forms a tool shows the user through the client (elicitation) and how they travel to each
 * protocol version. A legacy client is sent `elicitation/create` and the tool waits; a
 * 2026-07-28 client gets the question in an input_required result (round_trip.ts).
 */

/** A form to show the user: a message and a flat JSON Schema of what to fill in. */
export interface ElicitRequest {
  message: string;
  requestedSchema: {
    type: "object";
    properties: Record<string, Record<string, unknown>>;
    required?: string[];
  };
}

export interface ElicitResult {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, unknown>;
}

type Choice = { const: string; title: string };

/**
 * The form as a client of `version` can show it, and how to turn its answer back into the shape
 * asked for. 2025-06-18 forms know neither titled choices (`oneOf`) nor multiple choice (arrays):
 * titled choices become `enum` with `enumNames`, and each option of a multiple choice a checkbox.
 */
export function formFor(version: string, request: ElicitRequest): {
  request: ElicitRequest;
  restore(content: Record<string, unknown> | undefined): Record<string, unknown> | undefined;
} {
  if (version !== "2025-06-18") return { request, restore: (content) => content };
  const properties: Record<string, Record<string, unknown>> = {};
  const multiple = new Map<string, string[]>();
  for (const [key, schema] of Object.entries(request.requestedSchema.properties)) {
    const items = schema.items as { anyOf?: Choice[]; enum?: string[] } | undefined;
    if (schema.type === "array" && items) {
      const choices = items.anyOf ??
        (items.enum ?? []).map((value) => ({ const: value, title: value }));
      multiple.set(key, choices.map((choice) => choice.const));
      choices.forEach((choice, i) => {
        properties[`${key}__${i}`] = {
          type: "boolean",
          title: `${schema.title ?? key}: ${choice.title}`,
          default: false,
        };
      });
    } else if (Array.isArray(schema.oneOf)) {
      const { oneOf, ...rest } = schema;
      properties[key] = {
        ...rest,
        enum: (oneOf as Choice[]).map((c) => c.const),
        enumNames: (oneOf as Choice[]).map((c) => c.title),
      };
    } else {
      properties[key] = schema;
    }
  }
  const required = request.requestedSchema.required?.filter((key) => !multiple.has(key));
  return {
    request: { ...request, requestedSchema: { type: "object", properties, required } },
    restore(content) {
      if (!content) return content;
      const restored: Record<string, unknown> = {};
      const generated = new Set(
        [...multiple].flatMap(([key, consts]) => consts.map((_, i) => `${key}__${i}`)),
      );
      for (const [key, value] of Object.entries(content)) {
        if (!generated.has(key)) restored[key] = value;
      }
      for (const [key, consts] of multiple) {
        restored[key] = consts.filter((_, i) => content[`${key}__${i}`] === true);
      }
      return restored;
    },
  };
}
