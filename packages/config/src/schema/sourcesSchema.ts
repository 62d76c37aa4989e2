import { z } from 'zod';
import { isLoopbackHost } from '../isLoopbackHost.js';
import { count, envName, glob, seconds } from './fieldTypes.js';

// Plain http would hand the skills (and any token) to whoever sits on the network: loopback only.
const isWebUrl = (url: URL): boolean =>
  url.username === '' &&
  url.password === '' &&
  (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname)));

/** https (http on loopback), ssh, file, or scp-like `git@host:org/repo.git`; never credentials in the URL. */
const isGitUrl = (value: string): boolean => {
  // Never a leading '-' (git would read the URL as an option), in the user or the host.
  if (/^[A-Za-z0-9][A-Za-z0-9._-]*@[A-Za-z0-9][A-Za-z0-9.-]*:[^/]/.test(value)) return true;
  try {
    const url = new URL(value);
    if (url.protocol === 'ssh:') return url.password === '';
    if (url.protocol === 'file:') return true;
    return isWebUrl(url);
  } catch {
    return false;
  }
};

const isArchiveUrl = (value: string): boolean => {
  try {
    const url = new URL(value);
    return isWebUrl(url) && /\.(tar\.gz|tgz|zip)$/i.test(url.pathname);
  } catch {
    return false;
  }
};

const id = z
  .string()
  .regex(/^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/, 'must be 1-64 chars of a-z, 0-9 and -, no - at either end')
  .describe('Names the source everywhere (lock, logs, /readyz, get_info).');
const path = z
  .string()
  .min(1)
  .refine((p) => !p.split('/').includes('..') && !p.startsWith('/'), 'must be a relative path without ..')
  .optional()
  .describe('Subfolder holding the skill folders (default: the top).');
const skills = z.array(glob).min(1).optional().describe('Globs over skill folder names (default: all).');

const gitSourceSchema = z.strictObject({
  id,
  git: z
    .string()
    .refine(
      isGitUrl,
      'must be an https, ssh or file URL (http only on loopback), without credentials (use token_env)',
    )
    .describe('Repository URL.'),
  ref: z
    .string()
    .min(1)
    .max(256)
    // A ref beginning with '-' would reach git as an option (`--upload-pack=<command>`); no ref has one.
    .regex(/^[^-\s][^\s]*$/, 'must not begin with - or contain whitespace')
    .optional()
    .describe('Branch, tag or 40-hex commit (default: remote HEAD).'),
  path,
  skills,
  token_env: envName.optional().describe('Variable holding a token sent to this URL only (HTTP basic).'),
});

const archiveSourceSchema = z.strictObject({
  id,
  archive: z
    .string()
    .refine(isArchiveUrl, 'must be an https URL (http only on loopback) ending in .tar.gz, .tgz or .zip')
    .describe('Archive URL.'),
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex characters')
    .describe('The archive bytes must hash to this; checked before unpacking.'),
  path,
  skills,
});

/** One entry of `sources.list`: a git repository or an archive. */
const sourceSchema = z.union([gitSourceSchema, archiveSourceSchema]);

/** The `sources` config section: skills fetched from git or archives (docs/sources.md). */
export const sourcesSchema = z.strictObject({
  list: z
    .array(sourceSchema)
    .default([])
    .superRefine((list, ctx) => {
      const seen = new Set<string>();
      for (const [index, source] of list.entries()) {
        if (seen.has(source.id))
          ctx.addIssue({ code: 'custom', path: [index, 'id'], message: 'duplicate id' });
        seen.add(source.id);
      }
    })
    .describe(
      'Skills fetched from git or archives, pinned in the lock file, served after the roots: { id, git, ref, path, skills, token_env } or { id, archive, sha256, path, skills } (docs/sources.md).',
    ),
  lock_file: z
    .string()
    .min(1)
    .default('./skillgate.lock.yaml')
    .describe('Lock file pinning each source to a commit and content digest. Relative to the config file.'),
  cache_dir: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Content-addressed cache of fetched sources (default: $XDG_CACHE_HOME/skillgate or ~/.cache/skillgate).',
    ),
  fetch_timeout_seconds: seconds(3600).default(120).describe('Deadline of one source fetch.'),
  max_bytes: count(1024)
    .max(2 ** 40)
    .default(268_435_456)
    .describe(
      'Most bytes one source may bring in: an archive and its unpacked files, or what git fetches and checks out.',
    ),
  max_files: count(1).max(1_000_000).default(20_000).describe('Most files in one source.'),
  follow: z
    .strictObject({
      interval_seconds: z
        .number()
        .min(0)
        .max(86_400)
        .default(0)
        .describe('> 0: poll unpinned branch heads this often; a new commit goes in through a reload.'),
    })
    .default({ interval_seconds: 0 })
    .describe('Following branches of git sources (opt-in).'),
});
