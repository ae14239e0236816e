import {
  defineTool,
  type ElicitRequest,
  type ElicitResult,
  InputRequired,
  type ToolContext,
  ToolError,
} from "../../mcp/tool/mod.ts";
import { ASKS_THE_USER } from "../_lib/declarations/annotations.ts";

const OTHER = "Other";

export default defineTool({
  name: "ask_user",
  title: "Ask the user",
  description:
    "Puts 1 to 4 multiple-choice questions to the person as a form in their client and returns " +
    'the answers; "Other" with free text is always offered. Use it for decisions that are theirs ' +
    "(design choices, risky steps, unclear requirements). If the client cannot show forms, the " +
    "result says so: ask in the chat.",
  annotations: ASKS_THE_USER,
  input: {
    type: "object",
    properties: {
      questions: {
        type: "array",
        minItems: 1,
        maxItems: 4,
        items: {
          type: "object",
          properties: {
            question: {
              type: "string",
              minLength: 1,
              maxLength: 1000,
            },
            header: {
              type: "string",
              minLength: 1,
              maxLength: 30,
              description: "A short label for it, e.g. 'Database'.",
            },
            options: {
              type: "array",
              minItems: 2,
              maxItems: 6,
              items: {
                type: "object",
                properties: {
                  label: { type: "string", minLength: 1, maxLength: 60 },
                  description: {
                    type: "string",
                    maxLength: 300,
                    description: "What choosing it means.",
                  },
                },
                required: ["label"],
                additionalProperties: false,
              },
            },
            multi_select: {
              type: "boolean",
              description: "Allow several options.",
            },
          },
          required: ["question", "header", "options"],
          additionalProperties: false,
        },
      },
    },
    required: ["questions"],
    additionalProperties: false,
  },
  output: {
    type: "object",
    properties: {
      action: { enum: ["accept", "decline", "cancel"] },
      answers: {
        type: "array",
        items: {
          type: "object",
          properties: {
            header: { type: "string" },
            selected: { type: "array", items: { type: "string" } },
            other: { type: ["string", "null"] },
          },
          required: ["header", "selected", "other"],
          additionalProperties: false,
        },
      },
    },
    required: ["action", "answers"],
    additionalProperties: false,
  },

  run: askUser,
});

/** What the model asked ask_user for. */
interface AskUserArgs {
  questions: Question[];
}

/** Asks the user the questions through the client's form and returns the answers. */
async function askUser(args: AskUserArgs, ctx: ToolContext) {
  for (const q of args.questions) {
    const labels = q.options.map((o) => o.label);
    if (new Set(labels).size !== labels.length || labels.includes(OTHER)) {
      throw new ToolError(
        `the options of "${q.header}" must have distinct labels, and "${OTHER}" is added for you`,
      );
    }
  }
  const reply = await askThrough(ctx, form(args.questions));
  if (reply.action !== "accept") {
    return {
      content: reply.action === "decline"
        ? "The user declined to answer. Go on with your best judgment, or ask in the chat."
        : "The user dismissed the questions without answering. Ask again only if you must.",
      structured: { action: reply.action, answers: [] },
    };
  }
  const content = reply.content ?? {};
  const answers = args.questions.map((q, i) => {
    const picked = content[`q${i + 1}`];
    const selected = (Array.isArray(picked) ? picked : picked === undefined ? [] : [picked])
      .map(String)
      .filter((label) => label !== OTHER);
    const other = content[`q${i + 1}_other`];
    return {
      header: q.header,
      selected,
      other: typeof other === "string" && other.trim() ? bounded(other.trim()) : null,
    };
  });
  const lines = answers.map((a, i) =>
    `${i + 1}. ${a.header}: ${
      [...a.selected, ...(a.other ? [`"${a.other}"`] : [])].join(", ") || "(no answer)"
    }`
  );
  return {
    content: `The user answered:\n${lines.join("\n")}`,
    structured: { action: "accept" as const, answers },
  };
}

/**
 * Puts the form to the user. When the client fails to show it (an error, not the user's choice),
 * the model is told to ask in the chat; a stopped call or a modern client's retry goes through.
 */
async function askThrough(ctx: ToolContext, request: ElicitRequest): Promise<ElicitResult> {
  try {
    return await ctx.elicit(request);
  } catch (error) {
    if (error instanceof InputRequired || error instanceof ToolError || ctx.abortReason()) {
      throw error;
    }
    throw new ToolError(
      `the client could not show the questions (${
        error instanceof Error ? error.message : String(error)
      }); ask them in the chat instead`,
    );
  }
}

/** A typed-in answer, as much of it as a result should carry. */
const MAX_OTHER_CHARS = 2000;

function bounded(text: string): string {
  return text.length <= MAX_OTHER_CHARS
    ? text
    : `${text.slice(0, MAX_OTHER_CHARS)}… (${text.length - MAX_OTHER_CHARS} more characters cut)`;
}

type Question = {
  question: string;
  header: string;
  options: { label: string; description?: string }[];
  multi_select?: boolean;
};

/** The questions as one elicitation form: a choice per question, and a text box for "Other". */
function form(questions: Question[]): ElicitRequest {
  const properties: ElicitRequest["requestedSchema"]["properties"] = {};
  const required: string[] = [];
  questions.forEach((q, i) => {
    const choices = [
      ...q.options.map((o) => ({
        const: o.label,
        title: o.description ? `${o.label}: ${o.description}` : o.label,
      })),
      { const: OTHER, title: `${OTHER} (type your answer below)` },
    ];
    const key = `q${i + 1}`;
    properties[key] = q.multi_select
      ? { type: "array", title: q.header, description: q.question, items: { anyOf: choices } }
      : { type: "string", title: q.header, description: q.question, oneOf: choices };
    if (!q.multi_select) required.push(key);
    properties[`${key}_other`] = {
      type: "string",
      title: `${q.header}: your own answer`,
      description: `If you chose ${OTHER}, type it here.`,
    };
  });
  const message = questions.length === 1
    ? questions[0].question
    : `Please answer ${questions.length} questions:\n` +
      questions.map((q, i) => `${i + 1}. ${q.question}`).join("\n");
  return { message, requestedSchema: { type: "object", properties, required } };
}
