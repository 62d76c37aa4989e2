import type { CatalogSkill, SummaryFormat } from './catalogTypes.js';

const XML_ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

/** True for the code points XML 1.0 can hold; control characters and unpaired surrogates it cannot, even escaped. */
const isXmlChar = (code: number): boolean =>
  code === 0x9 ||
  code === 0xa ||
  code === 0xd ||
  (code >= 0x20 && code <= 0xd7ff) ||
  (code >= 0xe000 && code <= 0xfffd) ||
  code >= 0x10000;

/** Escapes text for an XML element, dropping characters XML cannot represent. */
function escapeXml(text: string): string {
  let escaped = '';
  for (const char of text) {
    if (isXmlChar(char.codePointAt(0) ?? 0)) escaped += XML_ENTITIES[char] ?? char;
  }
  return escaped;
}

const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** Options of renderSummary. */
export interface SummaryOptions {
  /** Name each skill's get_info tool (false where there are none). Default true. */
  readonly tools?: boolean;
  /** xml only: the most characters. Past it descriptions are dropped, then skills, and a note says so. */
  readonly maxChars?: number;
}

const xmlEntry = ({ skill, getInfoTool }: CatalogSkill, tools: boolean, description: boolean): string =>
  `<skill><name>${escapeXml(skill.name)}</name>` +
  `${description ? `<description>${escapeXml(skill.description)}</description>` : ''}` +
  `${tools ? `<tool>${escapeXml(getInfoTool.name)}</tool>` : ''}</skill>`;

const xmlList = (lines: readonly string[]): string =>
  ['<available_skills>', ...lines, '</available_skills>'].join('\n');

/**
 * The xml summary within `maxChars`, most useful first: whole if it fits; else every skill's name, with
 * descriptions in catalog order as long as they fit; else as many names as fit. A note says what was left out
 * and where the model finds it, so a large catalog costs every initialize a bounded number of tokens without
 * hiding that more skills exist (hosts keep only the first ~2 KB of the instructions: docs/clients.md).
 */
function fitXml(list: readonly CatalogSkill[], tools: boolean, maxChars: number): string {
  const full = xmlList(list.map((e) => xmlEntry(e, tools, true)));
  if (full.length <= maxChars) return full;
  const where = tools ? "each skill's get_info tool in tools/list" : "load_skill's description";
  const names = list.map((e) => xmlEntry(e, tools, false));
  const shortNote = (left: number) =>
    `<note>${left} descriptions left out to fit the instructions budget; ${where} has them.</note>`;
  // The longest note is charged up front; then each description that still fits goes in, in catalog order.
  let used = xmlList([...names, shortNote(list.length)]).length;
  if (used <= maxChars) {
    const entries = [...names];
    let left = list.length;
    list.forEach((e, i) => {
      const described = xmlEntry(e, tools, true);
      const extra = described.length - (names[i]?.length ?? 0);
      if (used + extra > maxChars) return;
      entries[i] = described;
      used += extra;
      left--;
    });
    return xmlList([...entries, shortNote(left)]);
  }
  const cutNote = (left: number) =>
    `<note>${left} more skills and every description left out to fit the instructions budget; ${where} has them.</note>`;
  // Fixed cost: the wrapper and the longest possible note; then names in order while they fit.
  used = xmlList([cutNote(list.length)]).length;
  let kept = 0;
  while (kept < names.length && used + (names[kept]?.length ?? 0) + 1 <= maxChars) {
    used += (names[kept]?.length ?? 0) + 1;
    kept++;
  }
  return xmlList([...names.slice(0, kept), cutNote(list.length - kept)]);
}

/**
 * The L1 summary of the given skills (docs/disclosure.md): names, descriptions and get_info tool names, never
 * filesystem paths, since the gateway is remote.
 */
export function renderSummary(
  entries: Iterable<CatalogSkill>,
  format: SummaryFormat,
  options: SummaryOptions = {},
): string {
  const list = [...entries];
  // Universal sessions have no get_info tools: naming them there would send the model to tools that do not exist.
  const tools = options.tools ?? true;
  switch (format) {
    case 'markdown':
      return list
        .map(
          (e) =>
            `- **${e.skill.name}**: ${oneLine(e.skill.description)}${tools ? ` (tool: ${e.getInfoTool.name})` : ''}`,
        )
        .join('\n');
    case 'json':
      return JSON.stringify(
        list.map(({ skill, getInfoTool }) => ({
          name: skill.name,
          description: skill.description,
          ...(tools ? { tool: getInfoTool.name } : {}),
          ...(skill.license === undefined ? {} : { license: skill.license }),
          ...(skill.compatibility === undefined ? {} : { compatibility: skill.compatibility }),
        })),
        null,
        2,
      );
    case 'xml':
      return fitXml(list, tools, options.maxChars ?? Number.POSITIVE_INFINITY);
  }
}
