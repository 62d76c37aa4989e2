import { existsSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { findExecutable, SANDBOX_PATH, sandboxArguments, systemLayout } from '@skillgate/runner';

/** What one sandboxed stdio server is given (docs/sandbox.md, "Stdio upstreams"). */
export interface StdioSandboxOptions {
  /** Absolute path of bwrap (the start-up probe found it working). */
  readonly bwrap: string;
  /** The configured argv. */
  readonly command: readonly string[];
  /** The gateway's working directory: relative paths of the argv are resolved against it. */
  readonly cwd: string;
  /** The gateway's PATH, to find the program named by argv[0]. */
  readonly searchPath: string;
  /** `upstreams[].sandbox.network`. */
  readonly network: boolean;
  /** `upstreams[].sandbox.read`: more paths mounted read-only. */
  readonly read: readonly string[];
  /** `upstreams[].sandbox.write`: paths mounted writable. */
  readonly write: readonly string[];
}

/** The sandbox of one stdio server: the argv to run inside, bwrap's options and PATH inside. */
export interface StdioSandbox {
  readonly command: readonly string[];
  readonly sandbox: { readonly bwrap: string; readonly options: readonly string[] };
  readonly path: string;
}

/**
 * The same bubblewrap sandbox scripts get, for a stdio upstream: own PID, IPC, UTS and user namespaces, no
 * network unless its config says so, the system directories read-only, a private /tmp, and of the host's
 * files only what its command needs: the program (its install prefix when it lives outside the system
 * directories), the package folder of every path in its argv (with the node_modules folders Node looks up
 * from there), and the configured `read` and `write` paths. Nothing of the gateway (its config, token files,
 * home, /proc) is visible.
 */
export function stdioSandbox(options: StdioSandboxOptions): StdioSandbox {
  const layout = systemLayout(options.network);
  const system = (path: string): boolean => layout.visible.some((dir) => isWithin(path, dir));
  const readOnly = new Set<string>();
  const add = (path: string): void => {
    if (!system(path)) readOnly.add(path);
  };
  const [program = '', ...rest] = options.command;
  const found = program.includes('/')
    ? resolve(options.cwd, program)
    : findExecutable(program, options.searchPath);
  let command = [...options.command];
  let pathInside = SANDBOX_PATH;
  if (found !== undefined && existsSync(found)) {
    const real = realpathSync(found);
    const bin = dirname(real);
    // A program in a bin/ folder (a Node install under nvm, /opt/x/bin) needs its prefix: lib/, its modules.
    add(basename(bin) === 'bin' ? dirname(bin) : bin);
    command = [real, ...rest];
    if (!system(bin)) pathInside = `${bin}:${SANDBOX_PATH}`;
  }
  for (const arg of rest) {
    if (!isAbsolute(arg) && !arg.startsWith('./') && !arg.startsWith('../')) continue;
    const path = resolve(options.cwd, arg);
    if (!existsSync(path)) continue;
    const real = realpathSync(path);
    if (statSync(real).isDirectory()) {
      add(real);
      continue;
    }
    const root = packageRoot(real, options.cwd);
    add(root);
    for (const modules of nodeModulesAbove(root)) add(modules);
  }
  for (const path of options.read) add(resolve(options.cwd, path));
  const writable = options.write.map((path) => resolve(options.cwd, path));
  return {
    command,
    path: pathInside,
    sandbox: {
      bwrap: options.bwrap,
      options: sandboxArguments({
        layout,
        readOnly: [...readOnly].filter((path) => !writable.includes(path)),
        writable,
        cwd: options.cwd,
        network: options.network,
        tmpBytes: 0,
      }),
    },
  };
}

// The folder of the package a file belongs to: the outermost node_modules holding it (its dependencies are
// beside it there), else the nearest folder with a package.json, unless that folder holds the gateway's
// working directory (the gateway's own files): then only the file's folder.
function packageRoot(file: string, gatewayCwd: string): string {
  const parts = file.split(sep);
  const modules = parts.indexOf('node_modules');
  if (modules > 0) return parts.slice(0, modules + 1).join(sep);
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    if (!existsSync(join(dir, 'package.json'))) continue;
    return isWithin(gatewayCwd, dir) ? dirname(file) : dir;
  }
  return dirname(file);
}

// Where Node looks for modules from a folder: node_modules in it and in every folder above it.
function nodeModulesAbove(dir: string): string[] {
  const found: string[] = [];
  for (let at = dir; at !== dirname(at); at = dirname(at)) {
    const modules = join(at, 'node_modules');
    if (existsSync(modules) && statSync(modules).isDirectory()) found.push(realpathSync(modules));
  }
  return found;
}

function isWithin(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}
