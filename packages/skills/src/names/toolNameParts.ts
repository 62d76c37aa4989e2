/** The role of a per-skill tool: what its name says it does (docs/decisions.md, "Catalog and names"). */
export type ToolRole = 'get_info' | 'run' | 'run_async' | 'read' | 'call';

/** The pieces a per-skill tool name is built from: `skill_{sname}_get_info` or `skill_{sname}_{role}_{sfile}`. */
export interface ToolNameParts {
  /** The sanitized skill name. */
  readonly sname: string;
  readonly role: ToolRole;
  /** The sanitized file (or upstream tool) part; absent for get_info. */
  readonly sfile?: string;
}

/** The plain (unshortened) name of a per-skill tool. */
export function plainToolName(parts: ToolNameParts): string {
  return parts.role === 'get_info'
    ? `skill_${parts.sname}_get_info`
    : `skill_${parts.sname}_${parts.role}_${parts.sfile ?? ''}`;
}
