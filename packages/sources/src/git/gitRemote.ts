import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SourcesError } from '../sourcesError.js';
import type { GitSource, SourceLimits } from '../sourceTypes.js';
import { type RunGitOptions, runGit } from './runGit.js';

/** What a git operation needs besides the source. */
export interface GitContext {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly deadline: number;
  readonly limits: SourceLimits;
  /** A folder git may run in (ls-remote needs no repository). */
  readonly workDir: string;
}

/** True for a 40-hex commit id: a ref that pins itself. */
const isCommitId = (ref: string | undefined): boolean => ref !== undefined && /^[0-9a-f]{40}$/.test(ref);

/** The token of a source, read from its `token_env`; an unset variable is an error naming the variable. */
function sourceToken(source: GitSource, env: GitContext['env']): string | undefined {
  if (source.token_env === undefined) return undefined;
  const token = env[source.token_env];
  if (token === undefined || token === '') {
    throw new SourcesError('TOKEN_MISSING', `token_env ${source.token_env} is not set`, {
      source: source.id,
    });
  }
  return token;
}

const gitOptions = (source: GitSource, context: GitContext, cwd: string): RunGitOptions => {
  const token = sourceToken(source, context.env);
  return {
    source: source.id,
    url: source.git,
    ...(token === undefined ? {} : { token }),
    cwd,
    deadline: context.deadline,
    env: context.env,
  };
};

/** Where the remote ref points now (peeled to its commit), read with `git ls-remote`; a commit id is itself. */
export async function resolveRemoteRef(source: GitSource, context: GitContext): Promise<string> {
  if (source.ref !== undefined && isCommitId(source.ref)) return source.ref;
  const ref = source.ref ?? 'HEAD';
  // An annotated tag's own line holds the tag object: the `^{}` pattern asks for the commit it peels to.
  const out = await runGit(
    ['ls-remote', '--', source.git, ref, `${ref}^{}`],
    gitOptions(source, context, context.workDir),
  );
  const refs = new Map<string, string>();
  for (const line of out.split('\n')) {
    const [sha, name] = line.split('\t');
    if (sha !== undefined && name !== undefined) refs.set(name, sha);
  }
  const commit =
    refs.get(`refs/tags/${ref}^{}`) ??
    refs.get(`refs/tags/${ref}`) ??
    refs.get(`refs/heads/${ref}`) ??
    refs.get(ref);
  if (commit === undefined) {
    throw new SourcesError('FETCH_FAILED', `the remote has no ref "${ref}"`, { source: source.id });
  }
  return commit;
}

/** True when the source's ref is a branch of the remote (what `sources.follow` polls). */
export async function isRemoteBranch(source: GitSource, context: GitContext): Promise<boolean> {
  if (isCommitId(source.ref)) return false;
  if (source.ref === undefined) return true;
  const out = await runGit(
    ['ls-remote', '--heads', '--', source.git, `refs/heads/${source.ref}`],
    gitOptions(source, context, context.workDir),
  );
  return out.trim() !== '';
}

/** The repository-relative folder of a source, without leading or trailing slashes ('' for the root). */
const sourcePath = (source: { readonly path?: string }): string =>
  (source.path ?? '').replace(/^\/+|\/+$/g, '');

/**
 * Fetches one commit of a git source into `dest`: a partial (blobs on demand), shallow fetch of that commit,
 * a sparse checkout of the source's `path` only, no submodules, hooks or LFS. `dest` ends up holding the
 * files of `path` (no .git). Resolves with the commit fetched.
 */
export async function fetchGitCommit(
  source: GitSource,
  want: string,
  dest: string,
  context: GitContext,
): Promise<string> {
  const repo = `${dest}.git-work`;
  await mkdir(repo, { recursive: true });
  try {
    // Every run here writes into `repo`: none may bring in more than the byte cap (docs/sources.md, caps).
    const options: RunGitOptions = {
      ...gitOptions(source, context, repo),
      diskCap: { dir: repo, maxBytes: context.limits.maxBytes },
    };
    await runGit(['init', '-q'], options);
    // `--` everywhere a configured value follows: a URL or ref beginning with '-' is never read as an option
    // (`--upload-pack=<command>` would run a command on a file URL).
    await runGit(['remote', 'add', '--', 'origin', source.git], options);
    const path = sourcePath(source);
    if (path !== '') {
      await runGit(['config', 'core.sparseCheckout', 'true'], options);
      await writeFile(join(repo, '.git/info/sparse-checkout'), `/${path}/\n`);
    }
    await runGit(
      [
        'fetch',
        '-q',
        '--depth',
        '1',
        '--filter=blob:none',
        '--no-tags',
        '--no-recurse-submodules',
        '--',
        'origin',
        want,
      ],
      options,
    );
    const commit = (await runGit(['rev-parse', 'FETCH_HEAD^{commit}'], options)).trim();
    await checkTree(source, commit, path, context.limits, options);
    await runGit(['checkout', '-q', '--detach', commit], options);
    await rename(path === '' ? repo : join(repo, path), dest);
    if (path === '') await rm(join(dest, '.git'), { recursive: true, force: true });
    return commit;
  } finally {
    await rm(repo, { recursive: true, force: true });
  }
}

/**
 * Refuses a missing `path` or a tree over the file cap before any file content is downloaded (the trees are
 * here with blob:none; asking blob sizes would fetch each blob, so the byte cap is held while git writes).
 */
async function checkTree(
  source: GitSource,
  commit: string,
  path: string,
  limits: SourceLimits,
  options: RunGitOptions,
): Promise<void> {
  const listing = await runGit(
    ['ls-tree', '-r', '-z', '--name-only', '--full-tree', commit, ...(path === '' ? [] : ['--', `${path}/`])],
    options,
  );
  const entries = listing.split('\0').filter((line) => line !== '');
  if (path !== '' && entries.length === 0) {
    throw new SourcesError('PATH_MISSING', `path "${path}" holds no files at ${commit}`, {
      source: source.id,
    });
  }
  if (entries.length > limits.maxFiles) {
    throw new SourcesError(
      'TOO_LARGE',
      `${entries.length} files at ${commit}, over the ${limits.maxFiles}-file cap (sources.max_files)`,
      { source: source.id },
    );
  }
}
