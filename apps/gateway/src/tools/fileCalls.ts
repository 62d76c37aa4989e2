import type { CallToolResult } from '@modelcontextprotocol/server';
import type { CatalogSkill } from '@skillgate/skills';
import type { KindHandlers } from './kindHandler.js';
import { findFile, type SkillLookup, unknownSkill, usableSkill } from './skillLookup.js';
import { type ReadLimits, readSkillFile } from './toolResults.js';

/** What the file kinds use. */
export interface FileServices {
  /** Which skills the caller may use (list_skill_files, read_skill_file name one in their arguments). */
  readonly disclosure: SkillLookup;
  /** Bounds of read tools (`resources.*`). */
  readonly readLimits: ReadLimits;
}

/** read, list_skill_files and read_skill_file: a skill's files, read within the bounds. */
export function fileCalls(
  services: FileServices,
): Pick<KindHandlers, 'read' | 'list_skill_files' | 'read_skill_file'> {
  const { disclosure, readLimits } = services;
  return {
    async read(call, target) {
      return readSkillFile(target.skill, target.file, readLimits, call.catalog.fileCache);
    },
    async list_skill_files(call, _target, input) {
      const entry = usableSkill(disclosure, call, input.skill);
      return entry === undefined ? unknownSkill(disclosure, call, input.skill) : listFiles(entry);
    },
    async read_skill_file(call, _target, input) {
      const found = findFile(disclosure, call, input.skill, input.path);
      return 'error' in found
        ? found.error
        : readSkillFile(input.skill, found.file, readLimits, call.catalog.fileCache);
    },
  };
}

function listFiles(entry: CatalogSkill): CallToolResult {
  const files = entry.skill.files.map((f) => ({
    path: f.path,
    size: f.size,
    script: f.isScript,
    mime_type: f.mimeType,
  }));
  const text = files.map((f) => `${f.path} (${f.size} bytes${f.script ? ', script' : ''})`).join('\n');
  return {
    content: [{ type: 'text', text: text || '(no files)' }],
    structuredContent: { skill: entry.skill.name, files },
  };
}
