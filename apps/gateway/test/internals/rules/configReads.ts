import { join, relative } from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from '../../helpers/testGateway.js';

const GATEWAY = join(REPO_ROOT, 'apps/gateway');
const SRC = join(GATEWAY, 'src');

/** One read of a `SkillgateConfig` field in the gateway's source, found with the type checker. */
export interface ConfigRead {
  /** The file, relative to apps/gateway/src. */
  readonly path: string;
  /** 1-based. */
  readonly line: number;
  /** The reading expression's source text (`config.server`, `{ server } = config`, `...config`). */
  readonly text: string;
}

/**
 * Every place apps/gateway/src reads a field of a value typed `SkillgateConfig`: `x.field`, `x['field']`,
 * `const { field } = x` and `{ ...x }`. Types, not text: a config passed under another name, or destructured
 * in a parameter, is still found; passing the config whole to a function reads nothing here.
 */
export function gatewayConfigReads(): readonly ConfigRead[] {
  const configFile = ts.readConfigFile(join(GATEWAY, 'tsconfig.json'), (path) => ts.sys.readFile(path));
  const parsed = ts.parseJsonConfigFileContent(configFile.config, ts.sys, GATEWAY);
  const roots = parsed.fileNames.filter((file) => file.startsWith(`${SRC}/`));
  const program = ts.createProgram(roots, parsed.options);
  const checker = program.getTypeChecker();
  const configType = skillgateConfigType(program, checker);
  const isConfig = (node: ts.Node): boolean => checker.getTypeAtLocation(node) === configType;
  const reads: ConfigRead[] = [];
  for (const source of program.getSourceFiles()) {
    if (!roots.includes(source.fileName)) continue;
    const path = relative(SRC, source.fileName);
    const record = (node: ts.Node) =>
      reads.push({
        path,
        line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1,
        text: node.getText(source),
      });
    const visit = (node: ts.Node): void => {
      if (
        ((ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) &&
          isConfig(node.expression)) ||
        ((ts.isSpreadAssignment(node) || ts.isSpreadElement(node)) && isConfig(node.expression)) ||
        (ts.isObjectBindingPattern(node) && isConfig(node))
      ) {
        record(ts.isObjectBindingPattern(node) ? node.parent : node);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return reads;
}

/** The type `SkillgateConfig` as @skillgate/config declares it. */
function skillgateConfigType(program: ts.Program, checker: ts.TypeChecker): ts.Type {
  for (const source of program.getSourceFiles()) {
    if (!source.fileName.endsWith('packages/config/src/configSchema.ts')) continue;
    for (const statement of source.statements) {
      if (ts.isTypeAliasDeclaration(statement) && statement.name.text === 'SkillgateConfig')
        return checker.getTypeAtLocation(statement.name);
    }
  }
  throw new Error('SkillgateConfig not found: packages/config/src/configSchema.ts moved?');
}
