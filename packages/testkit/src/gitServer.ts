import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/** A request a loopback HTTP test server received (for asserting where a token went). */
interface SeenRequest {
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
}

/** A real git smart-HTTP server: `git http-backend` (CGI) behind node:http on a free loopback port. */
export interface GitServer {
  /** `http://127.0.0.1:<port>/` + repository name (`company.git`). */
  url(repo: string): string;
  /** Folder holding the bare repositories. */
  readonly root: string;
  /** Every request received so far. */
  readonly seen: readonly SeenRequest[];
  /** Stops listening (the repositories stay): a server that went away. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Options of startGitServer. */
export interface GitServerOptions {
  /** Repositories (by name, e.g. `private.git`) that require HTTP basic `x-access-token:<token>`. */
  readonly tokens?: Readonly<Record<string, string>>;
  /** Address to listen on (default 127.0.0.1); another loopback address stands for another host. */
  readonly host?: string;
}

/** Runs git with a quiet, config-free environment (test fixtures only). */
async function git(args: readonly string[], cwd: string): Promise<string> {
  const { stdout } = await exec('git', [...args], {
    cwd,
    env: {
      PATH: process.env.PATH,
      HOME: cwd,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'test',
      GIT_AUTHOR_EMAIL: 'test@example.invalid',
      GIT_COMMITTER_NAME: 'test',
      GIT_COMMITTER_EMAIL: 'test@example.invalid',
    },
  });
  return stdout.trim();
}

/** A working repository with a bare twin served by a GitServer; commit files and push them. */
export interface TestRepo {
  /** Writes files (path -> content) into the work tree, commits, pushes; resolves with the commit id. */
  commit(files: Readonly<Record<string, string>>, message?: string): Promise<string>;
  /** Creates or force-moves a tag to HEAD (annotated when a message is given) and pushes it. */
  tag(name: string, message?: string): Promise<void>;
}

/** Creates bare repository `name` under the server's root (filters and fetch-by-commit allowed) and a clone. */
export async function createTestRepo(server: Pick<GitServer, 'root'>, name: string): Promise<TestRepo> {
  const bare = join(server.root, name);
  await mkdir(bare, { recursive: true });
  await git(['init', '-q', '--bare', '--initial-branch=main'], bare);
  await git(['config', 'uploadpack.allowFilter', 'true'], bare);
  await git(['config', 'uploadpack.allowReachableSHA1InWant', 'true'], bare);
  await git(['config', 'http.receivepack', 'true'], bare);
  const work = await mkdtemp(join(tmpdir(), 'skillgate-repo-'));
  await git(['init', '-q', '--initial-branch=main'], work);
  await git(['remote', 'add', 'origin', bare], work);
  return {
    async commit(files, message = 'update') {
      for (const [path, content] of Object.entries(files)) {
        await mkdir(dirname(join(work, path)), { recursive: true });
        await writeFile(join(work, path), content);
      }
      await git(['add', '-A'], work);
      await git(['commit', '-q', '--allow-empty', '-m', message], work);
      await git(['push', '-q', 'origin', 'HEAD:main'], work);
      return git(['rev-parse', 'HEAD'], work);
    },
    async tag(tagName, message) {
      await git(['tag', '-f', ...(message === undefined ? [] : ['-a', '-m', message]), tagName], work);
      await git(['push', '-q', '-f', 'origin', `refs/tags/${tagName}`], work);
    },
  };
}

/** Answers one request through `git http-backend`, as a web server's CGI would. */
function runBackend(root: string, request: IncomingMessage, response: ServerResponse): void {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const child = spawn('git', ['http-backend'], {
    env: {
      PATH: process.env.PATH,
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      GIT_CONFIG_NOSYSTEM: '1',
      HOME: root,
      REQUEST_METHOD: request.method ?? 'GET',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: request.headers['content-type'] ?? '',
      REMOTE_ADDR: '127.0.0.1',
      REMOTE_USER: 'test',
      ...(request.headers['content-encoding'] === undefined
        ? {}
        : { HTTP_CONTENT_ENCODING: String(request.headers['content-encoding']) }),
      ...(request.headers['git-protocol'] === undefined
        ? {}
        : { GIT_PROTOCOL: String(request.headers['git-protocol']) }),
    },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  request.pipe(child.stdin);
  let head = Buffer.alloc(0);
  let headersDone = false;
  child.stdout.on('data', (chunk: Buffer) => {
    if (headersDone) {
      response.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) return;
    headersDone = true;
    let status = 200;
    for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
      else response.setHeader(name, value);
    }
    response.statusCode = status;
    response.write(head.subarray(end + 4));
  });
  child.on('close', () => response.end());
}

/** Starts a git smart-HTTP server over a fresh folder of bare repositories. */
export async function startGitServer(options: GitServerOptions = {}): Promise<GitServer> {
  const root = await mkdtemp(join(tmpdir(), 'skillgate-git-'));
  const seen: SeenRequest[] = [];
  const host = options.host ?? '127.0.0.1';
  const tokens = options.tokens ?? {};
  const handler = (request: IncomingMessage, response: ServerResponse) => {
    seen.push({ url: request.url ?? '', headers: request.headers });
    const repo = (request.url ?? '').split('/')[1] ?? '';
    const token = tokens[repo];
    if (token !== undefined) {
      const expected = `Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;
      if (request.headers.authorization !== expected) {
        response.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"' }).end('unauthorized');
        request.resume();
        return;
      }
    }
    runBackend(root, request, response);
  };
  let server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  const stop = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return {
    url: (repo) => `http://${host}:${port}/${repo}`,
    root,
    seen,
    stop,
    async start() {
      server = createServer(handler);
      await new Promise<void>((resolve) => server.listen(port, host, resolve));
    },
    async close() {
      await stop().catch(() => {});
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** A loopback HTTP server answering each path with fixed bytes (archives), recording every request. */
export interface FileServer {
  url(path: string): string;
  readonly seen: readonly SeenRequest[];
  close(): Promise<void>;
}

/** Options of startFileServer. */
export interface FileServerOptions {
  /** The loopback address to listen on (default 127.0.0.1; 127.0.0.2 is another host to a client). */
  readonly host?: string;
  /** Paths answered with a 302 to the given URL instead of bytes. */
  readonly redirects?: Readonly<Record<string, string>>;
}

/** Serves `files` (path -> bytes) over loopback HTTP. */
export async function startFileServer(
  files: Readonly<Record<string, Uint8Array>>,
  options: FileServerOptions = {},
): Promise<FileServer> {
  const host = options.host ?? '127.0.0.1';
  const seen: SeenRequest[] = [];
  const server = createServer((request, response) => {
    seen.push({ url: request.url ?? '', headers: request.headers });
    const redirect = options.redirects?.[request.url ?? ''];
    const body = files[request.url ?? ''];
    if (redirect !== undefined) response.writeHead(302, { location: redirect }).end();
    else if (body === undefined) response.writeHead(404).end();
    else response.writeHead(200, { 'content-length': body.length }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://${host}:${port}${path}`,
    seen,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
