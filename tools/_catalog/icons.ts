/**
 * The pictures clients may show beside toolhost and its tools: one small drawing per family,
 * shared by the family's tools that declare none (assemble.ts), and one for the server. Each is
 * a scalable SVG in a data: URI (no network, nothing to fetch), kept to a few shapes because every
 * tools/list of 2025-11-25 and later carries one per tool.
 */
import { type Icon, svgIcon } from "../../mcp/tool/mod.ts";

/**
 * Grey reads on light and dark backgrounds alike. Drawn on a 10x10 grid so that the default
 * stroke (1 unit) is as heavy as 1.6 on 16x16 and the coordinates are single digits: every byte
 * here is paid for once per tool in each tools/list.
 */
function drawing(shapes: string, filled = false): Icon {
  const paint = filled ? 'fill="#777"' : 'fill="none" stroke="#777"';
  return svgIcon(
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10" ${paint}>${shapes}</svg>`,
  );
}

/** A toolbox. */
export const SERVER_ICON: Icon = drawing('<path d="M1 3h8v6H1zM3 3V1h4v2M1 6h8"/>');

/** By family folder (tools/<family>/). */
export const FAMILY_ICONS: Readonly<Record<string, Icon>> = {
  /** A page with a folded corner. */
  files: drawing('<path d="M2 1h4l2 2v6H2zM6 1v2h2"/>'),
  /** A magnifying glass. */
  search: drawing('<circle cx="4" cy="4" r="3"/><path d="M6 6l3 3"/>'),
  /** A prompt. */
  shell: drawing('<path d="M1 2l3 3-3 3M5 8h4"/>'),
  /** A globe. */
  web: drawing('<circle cx="5" cy="5" r="4"/><path d="M1 5h8M5 1C3 4 3 6 5 9C7 6 7 4 5 1"/>'),
  /** A checklist. */
  workflow: drawing('<path d="M1 2l1 1 2-2M6 2h3M1 7l1 1 2-2M6 7h3"/>'),
  /** A star. */
  skills: drawing('<path d="M5 1l1 3h3L6.5 6l1 3L5 7.2 2.5 9l1-3L1 4h3z"/>', true),
  /** A speech bubble. */
  session: drawing('<path d="M1 1h8v6H5L2 9V7H1z"/>'),
  /** A clock. */
  journal: drawing('<circle cx="5" cy="5" r="4"/><path d="M5 2v3l2 1"/>'),
  /** Angle brackets and a slash. */
  code: drawing('<path d="M3 2L1 5l2 3M7 2l2 3-2 3M6 1L4 9"/>'),
};
