import { type HtmlValue, html, type SafeHtml } from '../core/html.js';

/** One row of a dataTable: its attributes (for tests and anchors) and its cells, in column order. */
export interface DataRow {
  readonly attributes: SafeHtml;
  readonly cells: readonly HtmlValue[];
}

/**
 * A table that scrolls inside its own box on a wide screen and turns into one labelled block per row on a
 * phone (each cell names its column in `data-label`, which the stylesheet shows before it).
 */
export function dataTable(columns: readonly string[], rows: readonly DataRow[]): SafeHtml {
  return html`<div class="scroll"><table><thead><tr>${columns.map((c) => html`<th>${c}</th>`)}</tr></thead><tbody>${rows.map(
    (row) =>
      html`<tr${row.attributes}>${row.cells.map((cell, i) => html`<td data-label="${columns[i] ?? ''}">${cell}</td>`)}</tr>`,
  )}</tbody></table></div>`;
}
