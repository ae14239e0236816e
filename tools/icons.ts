/**
 * The pictures clients may show beside toolhost and its tools: one small drawing per family,
 * shared by the family's tools that declare none (assemble.ts), and one for the server. Each is
 * a 16x16 SVG in a data: URI (no network, nothing to fetch), kept to a few shapes because every
 * tools/list of 2025-11-25 and later carries one per tool.
 */
import { type Icon, svgIcon } from "../mcp/icons.ts";

/** Grey reads on light and dark backgrounds alike. */
function drawing(shapes: string, filled = false): Icon {
  const paint = filled ? 'fill="#777"' : 'fill="none" stroke="#777" stroke-width="1.6"';
  return svgIcon(
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16" ${paint}>${shapes}</svg>`,
  );
}

/** A toolbox. */
export const SERVER_ICON: Icon = drawing(
  '<rect x="1" y="5" width="14" height="9" rx="1"/><path d="M5 5V2h6v3M1 9h14"/>',
);

/** By family folder (tools/<family>/). */
export const FAMILY_ICONS: Readonly<Record<string, Icon>> = {
  files: drawing('<path d="M3 1h7l3 3v11H3zM10 1v3h3"/>'),
  search: drawing('<circle cx="7" cy="7" r="4.5"/><path d="M10 10l5 5"/>'),
  shell: drawing('<path d="M2 4l5 4-5 4M8 13h6"/>'),
  web: drawing(
    '<circle cx="8" cy="8" r="6.5"/><path d="M1.5 8h13M8 1.5c-3 4-3 9 0 13c3-4 3-9 0-13"/>',
  ),
  workflow: drawing('<path d="M2 4l2 2 3-3M9 5h6M2 11l2 2 3-3M9 12h6"/>'),
  skills: drawing('<path d="M8 1l2 5h5l-4 3 2 6-5-4-5 4 2-6-4-3h5z"/>', true),
  session: drawing('<path d="M2 2h12v9H7l-4 3v-3H2z"/>'),
  journal: drawing('<circle cx="8" cy="8" r="6.5"/><path d="M8 4v4l3 2"/>'),
  code: drawing('<path d="M5 3L1 8l4 5M11 3l4 5-4 5M9.5 2l-3 12"/>'),
};
