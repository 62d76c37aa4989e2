// Prints source files past 300 lines, as a reminder to read them once more: does each still hold one job?
// A warning, never a failure: files are split by cohesion, not by count (docs/architecture.md).
// Functions past 200 lines are printed too: a function that long is several steps that want names (issue 41).
// With --strict-functions one fails the run (CI turns it on once no function is past the limit).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const ROOT = join(import.meta.dirname, '..');
const LIMIT = 300;
const FUNCTION_LIMIT = 200;
const roots = ['apps/gateway/src', ...readdirSync(join(ROOT, 'packages')).map((p) => `packages/${p}/src`)];
const long = [];
const longFunctions = [];

/** The name a function is known by: its own, or the variable, property or method it is assigned to. */
function nameOf(node) {
  if (node.name !== undefined) return node.name.getText();
  const parent = node.parent;
  if (parent !== undefined && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent))) {
    return parent.name.getText();
  }
  return '(anonymous)';
}

function functionsPastLimit(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > FUNCTION_LIMIT) {
        longFunctions.push(`${relative(ROOT, file)}:${start + 1} ${nameOf(node)} (${lines} lines)`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

for (const root of roots) {
  let entries = [];
  try {
    entries = readdirSync(join(ROOT, root), { withFileTypes: true, recursive: true });
  } catch {
    continue;
  }
  for (const entry of entries) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = join(entry.parentPath, entry.name);
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n').length;
    if (lines > LIMIT) long.push(`${relative(ROOT, file)} (${lines} lines)`);
    functionsPastLimit(file, text);
  }
}
for (const line of long) console.log(`warning: ${line} is past ${LIMIT} lines: does it still hold one job?`);
const strict = process.argv.includes('--strict-functions');
for (const line of longFunctions) {
  console.log(`${strict ? 'error' : 'warning'}: function ${line} is past ${FUNCTION_LIMIT} lines`);
}
if (strict && longFunctions.length > 0) process.exitCode = 1;
