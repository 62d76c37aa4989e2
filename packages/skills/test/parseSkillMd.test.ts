import { describe, expect, it } from 'vitest';
import { type ParseSkillMdResult, type Problem, parseSkillMd, type Validation } from '../src/index.js';

const FILE = '/skills/pdf/SKILL.md';

const parse = (text: string, validation: Validation = 'lenient', dirName = 'pdf'): ParseSkillMdResult =>
  parseSkillMd(text, { file: FILE, dirName, validation });

const md = (frontmatter: string, body = '# Body\n'): string => `---\n${frontmatter}\n---\n${body}`;

const codes = (result: ParseSkillMdResult) =>
  result.problems.map((p) => [p.code, p.field ?? null, p.severity]);

describe('parseSkillMd', () => {
  it('parses a valid SKILL.md with every field and no problems', () => {
    const result = parse(
      md(
        [
          'name: pdf',
          'description: Extracts text from PDF files.',
          'license: MIT',
          'compatibility: Needs python3',
          'metadata:',
          '  version: "1.0"',
          '  owner: docs',
          'allowed-tools: Bash Read',
        ].join('\n'),
        '\n\n# PDF\n\nUse it.\n\n',
      ),
      'strict',
    );
    expect(result.problems).toEqual([]);
    expect(result.skill).toEqual({
      name: 'pdf',
      description: 'Extracts text from PDF files.',
      license: 'MIT',
      compatibility: 'Needs python3',
      metadata: { version: '1.0', owner: 'docs' },
      allowedTools: 'Bash Read',
      body: '# PDF\n\nUse it.',
      frontmatter: {
        name: 'pdf',
        description: 'Extracts text from PDF files.',
        license: 'MIT',
        compatibility: 'Needs python3',
        metadata: { version: '1.0', owner: 'docs' },
        'allowed-tools': 'Bash Read',
      },
    });
  });

  it('keeps the frontmatter verbatim and frozen: unknown keys, nesting and untrimmed values included', () => {
    const result = parse(
      md(
        [
          'name: pdf',
          'description: "  Padded.  "',
          'x-team:',
          '  owners: [ana, bo]',
          '  level: 3',
          'experimental: true',
        ].join('\n'),
      ),
    );
    expect(result.skill?.frontmatter).toEqual({
      name: 'pdf',
      description: '  Padded.  ',
      'x-team': { owners: ['ana', 'bo'], level: 3 },
      experimental: true,
    });
    expect(result.skill?.description).toBe('Padded.');
    expect(Object.isFrozen(result.skill?.frontmatter)).toBe(true);
    expect(Object.isFrozen(result.skill?.frontmatter['x-team'])).toBe(true);
  });

  describe('an oversized description (never served whole)', () => {
    const long = `${'d'.repeat(1000)}${'🚀'.repeat(100)}`;

    it('is cut to the specification limit (1024 characters, not UTF-16 units) in lenient mode', () => {
      const result = parse(md(`name: pdf\ndescription: ${long}`));
      expect([...(result.skill?.description ?? '')]).toHaveLength(1024);
      expect(result.skill?.description.endsWith('🚀')).toBe(true);
      expect(codes(result)).toEqual([['FIELD_INVALID', 'description', 'warning']]);
      expect(result.problems[0]?.reason).toMatch(/1100 characters, longer than 1024; serving its first 1024/);
    });

    it('is refused in strict mode', () => {
      const result = parse(md(`name: pdf\ndescription: ${long}`), 'strict');
      expect(result.skill).toBeUndefined();
      expect(codes(result)).toEqual([['FIELD_INVALID', 'description', 'error']]);
    });

    it('is cut to a lower configured limit, and the cap never exceeds the specification limit', () => {
      const lower = parseSkillMd(md('name: pdf\ndescription: abcdefghij'), {
        file: FILE,
        dirName: 'pdf',
        validation: 'lenient',
        maxDescriptionChars: 4,
      });
      expect(lower.skill?.description).toBe('abcd');
      const higher = parseSkillMd(md(`name: pdf\ndescription: ${long}`), {
        file: FILE,
        dirName: 'pdf',
        validation: 'lenient',
        maxDescriptionChars: 5000,
      });
      expect([...(higher.skill?.description ?? '')]).toHaveLength(1024);
    });
  });

  it('uses YAML 1.2: dates stay strings, yes/no stay strings', () => {
    const result = parse(
      md('name: pdf\ndescription: yes\nmetadata:\n  released: "2024-01-01"\n  plain: hello'),
    );
    expect(result.skill?.description).toBe('yes');
    const dated = parse(md('name: pdf\ndescription: 2024-01-01'));
    expect(dated.skill?.description).toBe('2024-01-01');
  });

  it('keeps YAML 1.1 tags (!!binary, !!set, !!omap, !!timestamp) as plain data, never a Buffer, Set, Map or Date', () => {
    const result = parse(
      md(
        'name: pdf\ndescription: d\nlicense: !!binary aGVsbG8=\ncompatibility: !!timestamp 2001-12-14\n' +
          'x-set: !!set {a, b}\nx-map: !!omap [k: v]',
      ),
    );
    expect(result.skill?.frontmatter).toEqual({
      name: 'pdf',
      description: 'd',
      license: 'aGVsbG8=',
      compatibility: '2001-12-14',
      'x-set': { a: null, b: null },
      'x-map': [{ k: 'v' }],
    });
  });

  it('accepts a BOM and CRLF line endings', () => {
    const result = parse('\uFEFF---\r\nname: pdf\r\ndescription: Works.\r\n---\r\n# Body\r\n', 'strict');
    expect(result.problems).toEqual([]);
    expect(result.skill?.description).toBe('Works.');
    expect(result.skill?.body).toBe('# Body');
  });

  it('trims the description and keeps the body without frontmatter', () => {
    const result = parse(md('name: pdf\ndescription: >\n  Folded\n  text.'), 'strict');
    expect(result.skill?.description).toBe('Folded text.');
    expect(result.skill?.body).toBe('# Body');
  });

  describe.each<Validation>(['lenient', 'strict'])('refused in %s mode', (validation) => {
    it.each([
      ['no frontmatter', '# Just markdown\n', 'FRONTMATTER_INVALID', null],
      ['unparsable YAML', md('name: pdf\ndescription: [unclosed'), 'FRONTMATTER_INVALID', null],
      ['duplicate keys', md('name: pdf\nname: pdf\ndescription: x'), 'FRONTMATTER_INVALID', null],
      ['a YAML list as frontmatter', md('- name\n- description'), 'FRONTMATTER_INVALID', null],
      ['a scalar as frontmatter', md('just text'), 'FRONTMATTER_INVALID', null],
      [
        'JavaScript frontmatter',
        '---js\n{ name: "pdf", description: "x" }\n---\n',
        'FRONTMATTER_INVALID',
        null,
      ],
      [
        'JSON frontmatter',
        '---json\n{ "name": "pdf", "description": "x" }\n---\n',
        'FRONTMATTER_INVALID',
        null,
      ],
      ['missing description', md('name: pdf'), 'FIELD_MISSING', 'description'],
      ['null description', md('name: pdf\ndescription:'), 'FIELD_MISSING', 'description'],
      ['empty description', md('name: pdf\ndescription: "  "'), 'FIELD_INVALID', 'description'],
      ['non-string description', md('name: pdf\ndescription: [a, b]'), 'FIELD_INVALID', 'description'],
      ['empty frontmatter', md(''), 'FIELD_MISSING', 'description'],
    ])('%s', (_label, text, code, field) => {
      const result = parse(text, validation);
      expect(result.skill).toBeUndefined();
      const problem = result.problems.find((p) => p.code === code && (p.field ?? null) === field);
      expect(problem).toMatchObject({ severity: 'error', file: FILE, skill: 'pdf' });
      expect(problem?.reason).not.toBe('');
    });
  });

  it('never evaluates JavaScript frontmatter', () => {
    const globals = globalThis as Record<string, unknown>;
    parse('---js\n{ name: (globalThis.parseSkillMdPwned = "yes"), description: "x" }\n---\n');
    expect(globals.parseSkillMdPwned).toBeUndefined();
  });

  describe('findings that lenient mode serves with a warning and strict mode refuses', () => {
    const cases: Array<[string, string, Array<[string, string]>]> = [
      ['missing name', 'description: d', [['FIELD_MISSING', 'name']]],
      ['non-string name', 'name: 12\ndescription: d', [['FIELD_INVALID', 'name']]],
      [
        'uppercase name',
        'name: PDF\ndescription: d',
        [
          ['FIELD_INVALID', 'name'],
          ['NAME_MISMATCH', 'name'],
        ],
      ],
      [
        'leading hyphen',
        'name: -pdf\ndescription: d',
        [
          ['FIELD_INVALID', 'name'],
          ['NAME_MISMATCH', 'name'],
        ],
      ],
      [
        'trailing hyphen',
        'name: pdf-\ndescription: d',
        [
          ['FIELD_INVALID', 'name'],
          ['NAME_MISMATCH', 'name'],
        ],
      ],
      [
        'double hyphen',
        'name: p--df\ndescription: d',
        [
          ['FIELD_INVALID', 'name'],
          ['NAME_MISMATCH', 'name'],
        ],
      ],
      [
        'underscore',
        'name: p_df\ndescription: d',
        [
          ['FIELD_INVALID', 'name'],
          ['NAME_MISMATCH', 'name'],
        ],
      ],
      [
        'name over 64 chars',
        `name: ${'a'.repeat(65)}\ndescription: d`,
        [
          ['FIELD_INVALID', 'name'],
          ['NAME_MISMATCH', 'name'],
        ],
      ],
      ['name differing from the directory', 'name: other\ndescription: d', [['NAME_MISMATCH', 'name']]],
      [
        'description over 1024 chars',
        `name: pdf\ndescription: ${'d'.repeat(1025)}`,
        [['FIELD_INVALID', 'description']],
      ],
      [
        'compatibility over 500 chars',
        `name: pdf\ndescription: d\ncompatibility: ${'c'.repeat(501)}`,
        [['FIELD_INVALID', 'compatibility']],
      ],
      [
        'empty compatibility',
        'name: pdf\ndescription: d\ncompatibility: ""',
        [['FIELD_INVALID', 'compatibility']],
      ],
      [
        'non-string compatibility',
        'name: pdf\ndescription: d\ncompatibility: 3',
        [['FIELD_INVALID', 'compatibility']],
      ],
      ['non-string license', 'name: pdf\ndescription: d\nlicense: [MIT]', [['FIELD_INVALID', 'license']]],
      [
        'non-string allowed-tools',
        'name: pdf\ndescription: d\nallowed-tools: [Bash]',
        [['FIELD_INVALID', 'allowed-tools']],
      ],
      ['metadata not a map', 'name: pdf\ndescription: d\nmetadata: [a]', [['FIELD_INVALID', 'metadata']]],
      [
        'non-string metadata value',
        'name: pdf\ndescription: d\nmetadata:\n  version: 1.0',
        [['FIELD_INVALID', 'metadata.version']],
      ],
      ['unknown top-level field', 'name: pdf\ndescription: d\nversion: "1"', [['FIELD_UNKNOWN', 'version']]],
    ];

    it.each(cases)('%s: lenient loads it with warnings', (_label, frontmatter, expected) => {
      const result = parse(md(frontmatter), 'lenient');
      expect(result.skill).toBeDefined();
      expect(codes(result)).toEqual(expected.map(([code, field]) => [code, field, 'warning']));
      for (const p of result.problems) expect(p.file).toBe(FILE);
    });

    it.each(cases)('%s: strict refuses it with errors', (_label, frontmatter, expected) => {
      const result = parse(md(frontmatter), 'strict');
      expect(result.skill).toBeUndefined();
      expect(codes(result)).toEqual(expected.map(([code, field]) => [code, field, 'error']));
    });
  });

  it('falls back to the directory name when name is missing (lenient)', () => {
    const result = parse(md('description: d'), 'lenient', 'my-dir');
    expect(result.skill?.name).toBe('my-dir');
    expect(result.problems[0]?.reason).toContain('my-dir');
  });

  it('serves the frontmatter name, not the directory name, when they differ', () => {
    const result = parse(md('name: Other Name\ndescription: d'), 'lenient', 'pdf');
    expect(result.skill?.name).toBe('Other Name');
    expect(result.problems.every((p: Problem) => p.skill === 'Other Name')).toBe(true);
  });

  it('drops malformed optional fields and keeps the valid metadata entries', () => {
    const result = parse(
      md(
        'name: pdf\ndescription: d\nlicense: [MIT]\nmetadata:\n  version: 1.0\n  owner: docs\n  __proto__: polluted',
      ),
      'lenient',
    );
    expect(result.skill?.license).toBeUndefined();
    const metadata = result.skill?.metadata ?? {};
    expect(Object.entries(metadata)).toEqual([
      ['owner', 'docs'],
      ['__proto__', 'polluted'],
    ]);
    expect(Object.getPrototypeOf(metadata)).toBe(Object.prototype);
  });

  it('treats a blank optional field as absent', () => {
    const result = parse(md('name: pdf\ndescription: d\nlicense:\nmetadata:'), 'strict');
    expect(result.problems).toEqual([]);
    expect(result.skill?.license).toBeUndefined();
    expect(result.skill?.metadata).toEqual({});
  });
});
