/**
 * A Jupyter notebook (nbformat 4) as its cells in order: kind, number, id, source, and outputs as
 * text; PNG and JPEG outputs come back as images (a few, small). Runs in the worker.
 */
import { DocumentError, type Extracted, type ExtractRequest } from "./types.ts";
import { Window } from "./window.ts";

/** Characters of one output shown at most. */
const MAX_OUTPUT_CHARS = 4_000;
/** Images sent at most per read, and their size each (base64 characters). */
const MAX_IMAGES = 5;
const MAX_IMAGE_CHARS = 1024 * 1024;

export interface NotebookCell {
  id?: string;
  cell_type: string;
  source?: string | string[];
  execution_count?: number | null;
  outputs?: Record<string, unknown>[];
  [key: string]: unknown;
}

export interface Notebook {
  cells: NotebookCell[];
  metadata?: { kernelspec?: { language?: string }; language_info?: { name?: string } };
  nbformat?: number;
  [key: string]: unknown;
}

export const joined = (text: unknown) =>
  Array.isArray(text) ? text.join("") : typeof text === "string" ? text : "";

/** A notebook parsed and checked enough to walk its cells. */
export function parseNotebook(text: string, name: string): Notebook {
  let notebook: Notebook;
  try {
    notebook = JSON.parse(text);
  } catch (error) {
    throw new DocumentError(
      `${name} is not a valid notebook: ${(error as Error).message.slice(0, 200)}`,
    );
  }
  if (!notebook || typeof notebook !== "object" || !Array.isArray(notebook.cells)) {
    throw new DocumentError(`${name} is not a Jupyter notebook (nbformat 4): it has no cells list`);
  }
  return notebook;
}

// deno-lint-ignore no-control-regex
const stripAnsi = (text: string) => text.replace(/\u001b\[[0-9;]*[A-Za-z]/g, "");

function capped(text: string): string {
  return text.length > MAX_OUTPUT_CHARS
    ? `${text.slice(0, MAX_OUTPUT_CHARS)}\n[… output cut at ${MAX_OUTPUT_CHARS} characters]`
    : text;
}

export function extractNotebook(request: ExtractRequest): Extracted {
  const notebook = parseNotebook(new TextDecoder().decode(request.bytes), request.name);
  const language = notebook.metadata?.kernelspec?.language ??
    notebook.metadata?.language_info?.name ?? "";
  const total = notebook.cells.length;
  const window = new Window(request);
  const { from, to } = window.range(total);
  const images: Extracted["images"] = [];
  let imagesLeftOut = 0;
  const maxImages = request.maxImages ?? MAX_IMAGES;
  for (let n = from; n <= to; n++) {
    const cell = notebook.cells[n - 1];
    const kind = cell.cell_type;
    const count = kind === "code" && cell.execution_count ? ` [${cell.execution_count}]` : "";
    const lines = [
      `--- cell ${n} of ${total}: ${kind}${count}${cell.id ? `, id ${cell.id}` : ""} ---`,
    ];
    const source = joined(cell.source);
    lines.push(kind === "code" ? `\`\`\`${language}\n${source}\n\`\`\`` : source);
    for (const output of Array.isArray(cell.outputs) ? cell.outputs : []) {
      const type = output.output_type;
      if (type === "stream") {
        lines.push(`output (${output.name ?? "stream"}):`, capped(stripAnsi(joined(output.text))));
      } else if (type === "error") {
        lines.push(
          `error: ${output.ename}: ${output.evalue}`,
          capped(
            stripAnsi(
              joined(output.traceback).length ? (output.traceback as string[]).join("\n") : "",
            ),
          ),
        );
      } else if (type === "execute_result" || type === "display_data") {
        const data = (output.data ?? {}) as Record<string, unknown>;
        const label = type === "execute_result"
          ? `output [${output.execution_count ?? ""}]`
          : "output";
        const image = ["image/png", "image/jpeg"].find((t) =>
          typeof data[t] === "string" || Array.isArray(data[t])
        );
        if (image) {
          const base64 = joined(data[image]).replace(/\s/g, "");
          if (images.length < maxImages && base64.length <= MAX_IMAGE_CHARS) {
            images.push({ data: base64, mimeType: image });
            lines.push(`${label}: ${image} image (image ${images.length} after this text)`);
          } else {
            imagesLeftOut++;
            lines.push(
              `${label}: ${image} image (not sent: ${
                images.length >= maxImages ? `at most ${maxImages} per read` : "over 768 KB"
              })`,
            );
          }
        } else if (data["text/markdown"] !== undefined) {
          lines.push(`${label}:`, capped(joined(data["text/markdown"])));
        } else if (data["text/plain"] !== undefined) {
          lines.push(`${label}:`, capped(stripAnsi(joined(data["text/plain"]))));
        } else {
          lines.push(`${label}: ${Object.keys(data).join(", ") || "nothing"} (not shown)`);
        }
      }
    }
    if (!window.add(n, lines.join("\n"))) break;
  }
  // Images of cells the budget left out are not sent.
  return {
    format: "ipynb",
    unit: "cell",
    text: window.text(),
    first: window.first,
    last: window.last,
    total,
    stoppedForSize: window.stoppedForSize,
    notes: imagesLeftOut
      ? [`[${imagesLeftOut} image output(s) not sent; read fewer cells to see them]`]
      : [],
    images,
  };
}
