#!/usr/bin/env node
// Group conventional-commit subject lines into Markdown release notes.
// Usage: changelog.mjs [--version X] [--date YYYY-MM-DD] [--] SUBJECT...
//        (or subjects on stdin, one per line, when no SUBJECT argument is given)
// Exit 0 on success, 2 when there are no subjects or an option is bad.
const USAGE = 'usage: changelog.mjs [--version X] [--date YYYY-MM-DD] [--] "type(scope): subject" ...';
const fail = (message) => {
  process.stderr.write(`changelog: ${message}\n${USAGE}\n`);
  process.exit(2);
};

function parseArgs(argv) {
  const options = { version: undefined, date: undefined, subjects: [] };
  let i = 0;
  for (; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') { i++; break; }
    const eq = /^--(version|date)=(.*)$/s.exec(arg);
    if (eq) { options[eq[1]] = eq[2]; continue; }
    if (arg === '--version' || arg === '--date') {
      if (i + 1 >= argv.length) fail(`${arg} needs a value`);
      options[arg.slice(2)] = argv[++i];
      continue;
    }
    if (arg === '-h' || arg === '--help') { process.stdout.write(`${USAGE}\n`); process.exit(0); }
    if (arg.startsWith('--')) fail(`unknown option ${arg} (use -- before a subject that starts with --)`);
    break;
  }
  options.subjects = argv.slice(i);
  if (options.version !== undefined && options.version.trim() === '') fail('--version must not be empty');
  if (options.date !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(options.date)) fail(`--date must be YYYY-MM-DD, got "${options.date}"`);
  return options;
}

async function readStdinLines() {
  if (process.stdin.isTTY) return [];
  process.stdin.setEncoding('utf8');
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text.split(/\r?\n/);
}

// type(scope)!: description
const CONVENTIONAL = /^(?<type>[A-Za-z]+)(?:\((?<scope>[^()]*)\))?(?<bang>!)?:\s+(?<text>\S.*)$/;

function classify(subject) {
  const m = CONVENTIONAL.exec(subject);
  if (!m) return { section: 'other', line: subject };
  const type = m.groups.type.toLowerCase();
  const scope = m.groups.scope?.trim();
  const text = m.groups.text.trim();
  const item = scope ? `**${scope}:** ${text}` : text;
  if (m.groups.bang) return { section: 'breaking', line: `${item} (${type})` };
  if (type === 'feat' || type === 'feature') return { section: 'features', line: item };
  if (type === 'fix' || type === 'bugfix') return { section: 'fixes', line: item };
  return { section: 'other', line: subject };
}

const options = parseArgs(process.argv.slice(2));
let subjects = options.subjects.length > 0 ? options.subjects : await readStdinLines();
subjects = subjects.map((s) => s.trim()).filter((s) => s !== '');
if (subjects.length === 0) fail('no commit subjects given (pass them as arguments or on stdin, one per line)');

const sections = { breaking: [], features: [], fixes: [], other: [] };
for (const subject of subjects) {
  const { section, line } = classify(subject);
  sections[section].push(line);
}

const titles = { breaking: '⚠ Breaking Changes', features: 'Features', fixes: 'Fixes', other: 'Other' };
const blocks = [];
if (options.version !== undefined) {
  blocks.push(`## ${options.version.trim()}${options.date ? ` (${options.date})` : ''}`);
}
for (const key of Object.keys(titles)) {
  if (sections[key].length === 0) continue;
  blocks.push([`### ${titles[key]}`, ...sections[key].map((l) => `- ${l}`)].join('\n'));
}
process.stdout.write(`${blocks.join('\n\n')}\n`);
