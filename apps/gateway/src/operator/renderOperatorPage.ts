import { html, SafeHtml } from '../core/html.js';
import { PAGE_STYLE } from '../core/pageStyle.js';
import { SERVER_INFO } from '../mcp/createMcpServer.js';
import { type OperatorView, PAGE_LIMITS } from './collectOperatorView.js';
import { dataTable } from './dataTable.js';
import { renderSkillsSection, toolList } from './renderSkillsSection.js';

// The stylesheet is this module's own text, never input: inserted as is.
const STYLE = new SafeHtml(PAGE_STYLE);

const time = (ms: number): string =>
  new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, 'Z');
// Session ids are credentials of their principal's sessions: an operator recognises one by its start.
const shortId = (id: string): string => (id.length > 8 ? `${id.slice(0, 8)}…` : id);

const stateClass = (state: string): string =>
  state === 'ready' || state === 'ok' ? 'ok' : state === 'connecting' ? 'warn' : 'bad';

const plural = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`;

const more = (count: number, what: string): SafeHtml | string =>
  count > 0 ? html`<p class="more">${count} more ${what}</p>` : '';

const overview = (view: OperatorView): SafeHtml => {
  const up = view.upstreams.filter((u) => u.state === 'ready').length;
  const stat = (value: string | number, label: string) =>
    html`<div class="stat"><b>${value}</b><span>${label}</span></div>`;
  return html`<section id="overview"><div class="stats">${[
    stat(view.skillsTotal, 'skills'),
    stat(view.problemsTotal, 'skill problems'),
    stat(`${up}/${view.upstreams.length}`, 'upstreams up'),
    stat(view.sessionsOpen, 'sessions open'),
    stat(view.jobsRunning, 'jobs running'),
    stat(view.callsTotal, 'tool calls (this replica)'),
  ]}</div></section>`;
};

const upstreamsSection = (view: OperatorView): SafeHtml => {
  const shown = view.upstreams.slice(0, PAGE_LIMITS.upstreams);
  const body =
    shown.length === 0
      ? html`<p class="muted">No upstream MCP servers are configured.</p>`
      : html`${dataTable(
          ['id', 'state', 'server', 'tools', 'last error'],
          shown.map((u) => ({
            attributes: html` data-upstream="${u.id}"`,
            cells: [
              html`<code>${u.id}</code>`,
              html`<span class="badge ${stateClass(u.state)}" data-state="${u.state}">${u.state}</span>`,
              u.serverInfo === undefined ? '—' : `${u.serverInfo.name} ${u.serverInfo.version ?? ''}`,
              u.tools.length,
              u.lastError ?? '—',
            ],
          })),
        )}
${shown.map(
  (u) =>
    html`<details class="skill"><summary><b>${u.id}</b> <span class="muted">${u.tools.length} tools, skill: ${u.skill}</span></summary><div class="body">${toolList(u.tools.slice(0, PAGE_LIMITS.toolsPerUpstream).map((t) => t.name))}${more(u.tools.length - PAGE_LIMITS.toolsPerUpstream, 'tools')}</div></details>`,
)}`;
  return html`<section id="upstreams"><h2>Upstream servers</h2>${body}${more(view.upstreams.length - shown.length, 'upstreams')}</section>`;
};

const principalSection = (view: OperatorView): SafeHtml => {
  const p = view.principal;
  const picker = html`<form class="inline" method="get" action="/"><label for="as">Principal</label><select id="as" name="as">${view.principalNames.map(
    (n) => html`<option value="${n}"${p?.name === n ? html` selected` : ''}>${n}</option>`,
  )}</select>${view.query === '' ? '' : html`<input type="hidden" name="q" value="${view.query}">`}<button type="submit">Show</button></form>`;
  if (p === undefined) {
    return html`<section id="principal"><h2>What does a token see?</h2>${picker}<p class="bad">No principal by that name.</p></section>`;
  }
  const capped = (tools: readonly string[]) => tools.slice(0, PAGE_LIMITS.principalTools);
  return html`<section id="principal"><h2>What does <code>${p.name}</code> see?</h2>${picker}
<h3>Skills it may use (${p.skills.length})</h3><p>${toolList(capped(p.skills), html` data-skills`)}</p>${more(p.skills.length - PAGE_LIMITS.principalTools, 'skills')}
<h3>tools/list of a new session (${view.sessionDisclosure}, ${p.sessionTools.length} tools)</h3>
<p class="muted">The same as <code>skillgate tools --token ${p.name}</code>.</p>
<p>${toolList(capped(p.sessionTools), html` data-tools="session"`)}</p>${more(p.sessionTools.length - PAGE_LIMITS.principalTools, 'tools')}
<h3>tools/list of a 2026-07-28 request (${view.modernDisclosure}, ${p.modernTools.length} tools)</h3>
<p>${toolList(capped(p.modernTools), html` data-tools="modern"`)}</p>${more(p.modernTools.length - PAGE_LIMITS.principalTools, 'tools')}
</section>`;
};

const sessionsSection = (view: OperatorView): SafeHtml => {
  const sessions =
    view.sessions.length === 0
      ? html`<p class="muted">No open sessions.</p>`
      : dataTable(
          ['session', 'principal', 'client', 'protocol', 'mode', 'opened'],
          view.sessions.map((s) => ({
            attributes: html` data-session="${s.id.slice(0, 8)}"`,
            cells: [
              html`<code>${shortId(s.id)}</code>`,
              s.principal,
              `${s.client.name} ${s.client.version}`,
              s.protocolVersion,
              s.disclosure,
              time(s.createdAt),
            ],
          })),
        );
  const jobs =
    view.jobs.length === 0
      ? html`<p class="muted">No running jobs.</p>`
      : dataTable(
          ['job', 'skill', 'script', 'owner', 'replica', 'started'],
          view.jobs.map((j) => ({
            attributes: html` data-job="${j.id.slice(0, 8)}"`,
            cells: [
              html`<code>${shortId(j.id)}</code>`,
              j.skill,
              html`<code>${j.script}</code>`,
              html`<code>${shortId(j.owner)}</code>`,
              j.replica,
              time(j.startedAt),
            ],
          })),
        );
  return html`<section id="sessions"><h2>Sessions and jobs</h2>
<p>${plural(view.sessionsOpen, 'session')} open, ${plural(view.jobsRunning, 'job')} running (${view.stateBackend === 'redis' ? 'all replicas' : 'this process'}).</p>
<h3>Most recently used sessions</h3>${sessions}${more(view.sessionsOpen - view.sessions.length, 'sessions')}
<h3>Newest running jobs</h3>${jobs}${more(view.jobsRunning - view.jobs.length, 'running jobs')}</section>`;
};

const callsSection = (view: OperatorView): SafeHtml => {
  const rows =
    view.calls.length === 0
      ? html`<p class="muted">No tool calls yet.</p>`
      : dataTable(
          ['when', 'principal', 'tool', 'kind', 'outcome', 'ms'],
          view.calls.map((c) => ({
            attributes: html` data-call="${c.tool}"`,
            cells: [
              time(c.at),
              c.principal,
              html`<code>${c.tool}</code>${c.upstream === undefined ? '' : html` <span class="muted">via ${c.upstream}</span>`}`,
              c.kind,
              html`<span class="${c.outcome === 'ok' ? 'ok' : 'bad'}">${c.outcome}</span>`,
              c.durationMs,
            ],
          })),
        );
  return html`<section id="calls"><h2>Recent tool calls</h2>
<p class="muted">The last ${view.callsCapacity} calls this replica answered (of ${view.callsTotal} since it started), newest first; arguments are never shown.</p>${rows}</section>`;
};

const usageSection = (view: OperatorView): SafeHtml => {
  const { usage } = view;
  const rows =
    usage.used.length === 0
      ? html`<p class="muted">No skill used yet.</p>`
      : dataTable(
          [
            'skill',
            'info',
            'runs ok',
            'runs failed',
            'runs at a limit',
            'reads',
            'upstream calls',
            'principals',
          ],
          usage.used.map((u) => ({
            attributes: html` data-usage="${u.skill}"`,
            cells: [
              html`<code>${u.skill}</code>`,
              u.info,
              u.runsOk,
              html`<span class="${u.runsError > 0 ? 'bad' : ''}">${u.runsError}</span>`,
              html`<span class="${u.runsLimit > 0 ? 'warn' : ''}">${u.runsLimit}</span>`,
              u.reads,
              u.upstream,
              u.principals.join(', '),
            ],
          })),
        );
  const never =
    usage.neverUsed.length === 0
      ? html`<p class="muted">Every skill was used.</p>`
      : html`<p id="never-used">${usage.neverUsed.map((name, i) => html`${i === 0 ? '' : ', '}<code>${name}</code>`)}</p>`;
  const queries =
    usage.queries.length === 0
      ? html`<p class="muted">${usage.emptySearches === 0 ? 'None.' : 'Their texts are not kept (observability.keep_queries).'}</p>`
      : dataTable(
          ['query', 'times'],
          usage.queries.map((q) => ({ attributes: html` data-query="${q.text}"`, cells: [q.text, q.n] })),
        );
  return html`<section id="usage"><h2>Skill usage</h2>
<p class="muted">${view.stateBackend === 'redis' ? 'All replicas, the last 30 days' : 'This process, since it started'}; most used first. info counts get_info and load_skill.</p>${rows}
<h3>Never used</h3>${never}
<h3>Searches that found nothing: ${usage.emptySearches}</h3>${queries}</section>`;
};

const connectionsSection = (view: OperatorView): SafeHtml | string => {
  const { connections } = view;
  if (connections === undefined) return '';
  const body =
    connections.length === 0
      ? html`<p class="muted">No one has connected an account yet.</p>`
      : dataTable(
          ['provider', 'connections'],
          connections.map((c) => ({
            attributes: html` data-provider="${c.provider}"`,
            cells: [html`<code>${c.provider}</code>`, c.count],
          })),
        );
  return html`<section id="connections"><h2>Connections</h2>
<p class="muted">Accounts and secrets people connected, per provider: counts only, never a value (docs/credentials.md; <code>skillgate connections</code> lists and revokes them).</p>${body}</section>`;
};

/** The whole operator page (docs/operator.md): server-rendered, no script, no external asset. */
export function renderOperatorPage(view: OperatorView): string {
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>skillgate operator</title>
<style>${STYLE}</style></head><body>
<header><div><h1>skillgate ${SERVER_INFO.version}</h1><p>Operator page, opened as <b>${view.viewer}</b>.</p>
<nav><a href="#skills">Skills</a><a href="#upstreams">Upstreams</a><a href="#principal">Who sees what</a><a href="#sessions">Sessions and jobs</a><a href="#usage">Usage</a>${view.connections === undefined ? '' : html`<a href="#connections">Connections</a>`}<a href="#calls">Recent calls</a><a href="#config">Config</a></nav></div></header>
<main>${overview(view)}${renderSkillsSection(view)}${upstreamsSection(view)}${principalSection(view)}${sessionsSection(view)}${usageSection(view)}${connectionsSection(view)}${callsSection(view)}
<section id="config"><h2>Effective config</h2><p class="muted">Secrets are redacted.</p><pre>${view.config}</pre></section>
</main></body></html>`.text;
}
