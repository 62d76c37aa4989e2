import { html, type SafeHtml } from '../core/html.js';
import type { Surface } from '../disclosure/skillSurfaces.js';
import type { OperatorView, SkillRow } from './collectOperatorView.js';

const SURFACE_LABELS: Readonly<Record<Surface, string>> = {
  namespaced: 'namespaced, before get_info',
  unlocked: 'namespaced, after get_info',
  catalog: 'catalog',
  modern: '2026-07-28',
};
const SURFACES = Object.keys(SURFACE_LABELS) as Surface[];

const surfaceLabel = (surface: Surface, view: OperatorView): string =>
  surface === 'modern' ? `2026-07-28 (${view.modernDisclosure})` : SURFACE_LABELS[surface];

/**
 * Names (tools, skills) as one line of text separated by spaces (no name holds one): one element for a list
 * of any length, so a page of 1,000 skills stays light for the browser.
 */
export const toolList = (tools: readonly string[], attributes: SafeHtml = html``): SafeHtml =>
  tools.length === 0
    ? html`<span class="muted"${attributes}>—</span>`
    : html`<span class="names"${attributes}>${tools.join(' ')}</span>`;

const severityClass = (severity: string): string => (severity === 'error' ? 'bad' : 'warn');

/** A problem as one line: severity, code, where, reason. */
const problemLine = (p: {
  severity: string;
  code: string;
  file: string;
  field?: string;
  reason: string;
}): SafeHtml =>
  html`<li><span class="badge ${severityClass(p.severity)}">${p.severity}</span> <code>${p.code}</code> ${p.reason}
<span class="muted">${p.file}${p.field === undefined ? '' : ` [${p.field}]`}</span></li>`;

const sizeText = (bytes: number): string =>
  bytes < 1024
    ? `${bytes} B`
    : bytes < 1048576
      ? `${(bytes / 1024).toFixed(1)} KB`
      : `${(bytes / 1048576).toFixed(1)} MB`;

const fileList = (row: SkillRow): SafeHtml => {
  if (row.files.length === 0) return html`<p class="muted">No files besides SKILL.md.</p>`;
  const files = row.files
    .map((f) => `${f.path} (${sizeText(f.size)}${f.isScript ? ', script' : ''})`)
    .join(' · ');
  return html`<p class="files"><span class="muted">Files:</span> ${files}${
    row.moreFiles > 0 ? ` · ${row.moreFiles} more files` : ''
  }</p>`;
};

const skillRow = (row: SkillRow, view: OperatorView): SafeHtml => {
  const errors = row.problems.filter((p) => p.severity === 'error').length;
  const badge =
    row.problems.length === 0
      ? ''
      : html` <span class="badge ${errors > 0 ? 'bad' : 'warn'}">${row.problems.length} problem${row.problems.length === 1 ? '' : 's'}</span>`;
  return html`<details class="skill" data-skill="${row.name}"><summary><b>${row.name}</b>${badge}${
    row.upstream === undefined ? '' : html` <span class="badge">upstream ${row.upstream}</span>`
  }${
    row.origin === undefined
      ? ''
      : html` <span class="badge" data-source="${row.origin.source}" title="${row.origin.commit}">source ${row.origin.source} @ ${row.origin.commit.replace(/^sha256:/, '').slice(0, 12)}</span>`
  }<span class="desc">${row.description}</span></summary><div class="body"><dl class="surfaces">${SURFACES.map(
    (s) =>
      html`<dt>${surfaceLabel(s, view)}</dt><dd>${toolList(row.surfaces[s], html` data-surface="${s}"`)}</dd>`,
  )}</dl>${fileList(row)}${
    row.problems.length === 0 ? '' : html`<ul class="plain">${row.problems.map(problemLine)}</ul>`
  }<p class="muted">${row.dir}</p></div></details>`;
};

/** The skills section: a filter, the shared tools of each surface, problems, then one row per skill (capped). */
export function renderSkillsSection(view: OperatorView): SafeHtml {
  const shown = view.skills.length;
  const hidden = view.skillsMatched - shown;
  return html`<section id="skills"><h2>Skills <span class="muted">(${view.skillsTotal})</span></h2>
<form class="inline" method="get" action="/"><input type="search" name="q" value="${view.query}" placeholder="Filter by name or description" aria-label="Filter skills">${
    view.principal === undefined ? '' : html`<input type="hidden" name="as" value="${view.principal.name}">`
  }<button type="submit">Filter</button></form>
${view.query === '' ? '' : html`<p class="muted">${view.skillsMatched} of ${view.skillsTotal} skills match “${view.query}”.</p>`}
<h3>Shared tools on each surface</h3><dl class="surfaces">${SURFACES.map(
    (s) =>
      html`<dt>${surfaceLabel(s, view)}</dt><dd>${toolList(view.shared[s], html` data-shared="${s}"`)}</dd>`,
  )}</dl>
<p class="muted">A new 2025-era session gets <code>${view.sessionDisclosure}</code> unless a client profile picks another mode.</p>
${
  view.otherProblems.length === 0
    ? ''
    : html`<h3>Problems</h3><ul class="plain">${view.otherProblems.map(problemLine)}</ul>`
}
<div id="skill-list">${view.skills.map((row) => skillRow(row, view))}</div>
${hidden > 0 ? html`<p class="more" id="skills-more">${hidden} more skills not shown; filter to find them.</p>` : ''}
</section>`;
}
