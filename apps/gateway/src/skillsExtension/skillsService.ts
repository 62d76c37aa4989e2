import { type GetPromptResult, type McpServer, ProtocolError } from '@modelcontextprotocol/server';
import {
  type Skill,
  type SkillReadResult,
  type SkillSource,
  SkillsExtension,
} from '@modelcontextprotocol/server/ext/skills';
import type { SkillPrompt } from '@skillgate/skills';
import type { FastifyBaseLogger } from 'fastify';
import type { Principal } from '../auth/accessPolicy.js';
import type { CatalogSource } from '../core/catalogSource.js';
import { renderOnce } from '../core/renderedJson.js';
import type { DisclosurePolicy } from '../disclosure/disclosurePolicy.js';
import { SDK_ERRORS } from '../errors/sdkErrors.js';
import { boundStrings } from '../observability/boundStrings.js';
import type { ReadLimits } from '../tools/toolResults.js';
import { readSkillResource } from './readSkillResource.js';
import { skillsPage } from './skillsPage.js';
import { createSkillsViews, type SkillsView } from './skillsView.js';

/** Skills extensions kept at once (one per principal and cache scope). */
const MAX_EXTENSIONS = 1024;

/** Serves skills as MCP primitives: the Skills extension and, with `skills.prompts`, one prompt per skill. */

// The audit line's outcome of a refused read (docs/skills-extension.md): short words, as before the codes.
const AUDIT_OUTCOMES: Readonly<Record<string, string>> = {
  RESOURCE_TOO_LARGE: 'too_large',
  RESOURCE_CHANGED: 'changed',
  RESOURCE_UNREADABLE: 'unreadable',
};
export interface SkillsService {
  /**
   * Declares and serves the Skills extension (`skills/list`, `skills/get`, `skill://` resources) on a server
   * for one principal, plus prompts when configured. Before the server connects.
   */
  attach(mcp: McpServer, principal: Principal): void;
  /** What the principal sees of the current catalog (entries sorted by URI, resources, prompts). */
  view(principal: Principal): SkillsView;
  /** skills/get's entry for a principal; undefined for a skill it may not see (answered like a missing one). */
  getSkill(principal: Principal, uri: string): Skill | undefined;
  /** resources/read of a `skill://` file for a principal (audited); undefined for a file it may not read. */
  readResource(principal: Principal, uri: string): Promise<SkillReadResult | undefined>;
  /** prompts/get for a principal (its registered handler); throws -32602 for a prompt it may not see. */
  getPrompt(principal: Principal, name: string): GetPromptResult;
}

/** Options of createSkillsService. */
export interface SkillsServiceOptions {
  readonly catalogs: Pick<CatalogSource, 'current'>;
  /** Who may see which skill (the same rule as for tools). */
  readonly disclosure: DisclosurePolicy;
  readonly log: FastifyBaseLogger;
  /** Bounds of a `skill://` read (`resources.*`). */
  readonly readLimits: ReadLimits;
  /** Longest client string kept in the audit log (`server.max_client_string_chars`). */
  readonly maxClientStringChars: number;
  /** The 2026-07-28 cache lifetime of lists (`tools.list_ttl_ms`). */
  readonly listTtlMs: number;
  /** Whether each skill is also an MCP prompt (`skills.prompts`). */
  readonly prompts: boolean;
}

/**
 * Builds the skills service over the catalog source and the disclosure policy (docs/skills-extension.md).
 * The SDK's SkillsExtension does the protocol part (capability, method schemas, errors, cache fields on
 * 2026-07-28, the `skill://` resource template); our SkillSource answers from the catalog, filtered by the
 * principal exactly as tools are, so another principal's skill answers like a nonexistent one.
 */
export function createSkillsService(options: SkillsServiceOptions): SkillsService {
  const { catalogs, disclosure, log } = options;
  const viewOf = createSkillsViews(disclosure);
  const view = (principal: Principal) => viewOf(catalogs.current, principal);
  const readOptions = {
    ...options.readLimits,
    onUnreadable: (error: unknown) => log.warn({ err: error }, 'skill resource could not be read'),
  };

  const sourceFor = (principal: Principal): SkillSource => ({
    async list({ cursor }) {
      const page = skillsPage(view(principal).entries, cursor);
      return page.nextCursor === undefined
        ? { skills: [...page.skills] }
        : { skills: [...page.skills], nextCursor: page.nextCursor };
    },
    get: async (uri) => getSkill(principal, uri),
    read: (uri) => readResource(principal, uri),
    async listResources() {
      return [...view(principal).listed];
    },
  });

  const getSkill = (principal: Principal, uri: string): Skill | undefined => view(principal).byUri.get(uri);

  const readResource = async (principal: Principal, uri: string): Promise<SkillReadResult | undefined> => {
    const catalog = catalogs.current;
    const target = catalog.extension.resolveUri(uri);
    // Audited like tool calls: who read which file, and who probed for what is not theirs.
    const audit = (outcome: string) =>
      log.info(
        {
          audit: 'resource_read',
          principal: principal.name,
          uri: boundStrings(uri, options.maxClientStringChars),
          outcome,
        },
        'skill resource read',
      );
    if (target === undefined || !viewOf(catalog, principal).mayUse(target.skill)) {
      audit('not_found');
      return undefined;
    }
    try {
      const result = await readSkillResource(uri, target.file, readOptions, catalog.fileCache);
      audit('ok');
      return result;
    } catch (error) {
      const reason =
        error instanceof ProtocolError ? (error.data as { reason?: unknown })?.reason : undefined;
      audit((typeof reason === 'string' ? AUDIT_OUTCOMES[reason] : undefined) ?? 'error');
      throw error;
    }
  };

  // One extension per principal and cache scope: its cache hint is fixed at construction.
  const extensions = new Map<string, SkillsExtension>();
  const extensionFor = (principal: Principal): SkillsExtension => {
    const cacheScope = disclosure.cacheScope(catalogs.current, principal);
    const key = `${principal.id}\0${cacheScope}`;
    let extension = extensions.get(key);
    if (extension === undefined) {
      extension = new SkillsExtension({
        source: sourceFor(principal),
        cacheHint: { ttlMs: options.listTtlMs, cacheScope },
        onWarning: (warning) => log.warn({ warning }, `skills extension: ${warning.message}`),
      });
      // Bounded: OAuth brings as many principals as the IdP has subjects; an evicted one is rebuilt.
      if (extensions.size >= MAX_EXTENSIONS) {
        const oldest = extensions.keys().next();
        if (oldest.done !== true) extensions.delete(oldest.value);
      }
      extensions.set(key, extension);
    }
    return extension;
  };

  const promptResults = new WeakMap<SkillPrompt, GetPromptResult>();
  const getPrompt = (principal: Principal, name: string): GetPromptResult => {
    const prompt = view(principal).promptsByName.get(name);
    // Another principal's prompt answers exactly like a nonexistent one.
    if (prompt === undefined) throw SDK_ERRORS.promptNotFound(name);
    let result = promptResults.get(prompt);
    if (result === undefined) {
      // The same for every request until the catalog changes: built once, written as JSON once.
      result = renderOnce({
        description: prompt.description,
        messages: [{ role: 'user' as const, content: { type: 'text' as const, text: prompt.text } }],
      });
      promptResults.set(prompt, result);
    }
    return result;
  };

  const attachPrompts = (mcp: McpServer, principal: Principal) => {
    const server = mcp.server;
    server.registerCapabilities({ prompts: { listChanged: true } });
    server.setRequestHandler('prompts/list', () => ({ prompts: [...view(principal).prompts] }));
    server.setRequestHandler('prompts/get', (request) => getPrompt(principal, request.params.name));
  };

  return {
    attach(mcp, principal) {
      extensionFor(principal).attach(mcp);
      if (options.prompts) attachPrompts(mcp, principal);
    },
    view,
    getSkill,
    readResource,
    getPrompt,
  };
}
