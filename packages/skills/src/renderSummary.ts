import type { CatalogSkill, SummaryFormat } from './types.js';

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
export function escapeXml(text: string): string {
  let escaped = '';
  for (const char of text) {
    if (isXmlChar(char.codePointAt(0) ?? 0)) escaped += XML_ENTITIES[char] ?? char;
  }
  return escaped;
}

const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

/**
 * The L1 summary of the given skills (DESIGN §4): names, descriptions and get_info tool names, never
 * filesystem paths, since the gateway is remote.
 */
export function renderSummary(
  entries: Iterable<CatalogSkill>,
  format: SummaryFormat,
  options: { readonly tools?: boolean } = {},
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
    case 'xml': {
      const skills = list.map(
        ({ skill, getInfoTool }) =>
          `<skill><name>${escapeXml(skill.name)}</name><description>${escapeXml(skill.description)}</description>` +
          `${tools ? `<tool>${escapeXml(getInfoTool.name)}</tool>` : ''}</skill>`,
      );
      return ['<available_skills>', ...skills, '</available_skills>'].join('\n');
    }
  }
}
