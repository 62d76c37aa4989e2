import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from '../../helpers/testGateway.js';

const SRC = join(REPO_ROOT, 'apps/gateway/src');

/** One method call in the gateway's source (`receiver.method(...)`), found in its syntax tree. */
export interface SourceCall {
  /** The file, relative to apps/gateway/src. */
  readonly path: string;
  /** 1-based. */
  readonly line: number;
  readonly method: string;
  /** The receiver's source text (`call.catalog`, `disclosure`). */
  readonly receiver: string;
  /** The innermost named function or method the call sits in. */
  readonly within: string | undefined;
}

const isFunction = (node: ts.Node | undefined): boolean =>
  node !== undefined && (ts.isArrowFunction(node) || ts.isFunctionExpression(node));

/** The name of a function the node declares (a declaration, a method, or a name bound to a function). */
const nameOf = (node: ts.Node): string | undefined => {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name !== undefined)
    return node.name.getText();
  if ((ts.isVariableDeclaration(node) || ts.isPropertyAssignment(node)) && isFunction(node.initializer))
    return node.name.getText();
  return undefined;
};

/**
 * Every `x.method(...)` call of every .ts file under apps/gateway/src: what the rules that imports cannot
 * state (who reads allow-lists, who resolves a called name) are checked on. Syntax, not text: a call split
 * over lines or written through another variable is still a call.
 */
export async function gatewayCalls(): Promise<readonly SourceCall[]> {
  const entries = await readdir(SRC, { withFileTypes: true, recursive: true });
  const calls: SourceCall[] = [];
  for (const entry of entries) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = join(entry.parentPath, entry.name);
    const path = relative(SRC, file);
    const source = ts.createSourceFile(file, await readFile(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node, within: string | undefined): void => {
      const named = nameOf(node) ?? within;
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
        calls.push({
          path,
          line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1,
          method: node.expression.name.text,
          receiver: node.expression.expression.getText(source),
          within: named,
        });
      }
      ts.forEachChild(node, (child) => visit(child, named));
    };
    visit(source, undefined);
  }
  return calls;
}
