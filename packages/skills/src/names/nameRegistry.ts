import type { Problem } from '../load/loadTypes.js';
import { shortenToolName } from './shortenToolName.js';
import { shortHash } from './shortHash.js';
import { plainToolName, type ToolNameParts } from './toolNameParts.js';

/** Who asks for a tool name: its parts, enough to derive a stable hash, and whom to report a clash to. */
export interface NameClaim extends ToolNameParts {
  /** Stable identity of the tool (skill, kind, file): the hash of a renamed tool depends only on it. */
  readonly identity: string;
  /** Human description of the owner, e.g. `run tool of scripts/build.sh of skill "pdf"`. */
  readonly owner: string;
  /** File the problem is reported against. */
  readonly file: string;
  readonly skill?: string;
}

/** Hands out unique tool names of at most `maxLength` chars, first come first served. */
export interface NameRegistry {
  /** Marks a fixed name as taken without reporting anything. */
  reserve(name: string, owner: string): void;
  /** Returns the plain name if it is free and fits, else a shortened or hash-suffixed one (reported). */
  claim(claim: NameClaim): string;
}

/** Creates a registry; problems found while naming are pushed to `problems`. */
export function createNameRegistry(maxLength: number, problems: Problem[]): NameRegistry {
  const owners = new Map<string, string>();
  const report = (claim: NameClaim, code: Problem['code'], field: string, reason: string) => {
    const problem = { severity: 'warning' as const, code, file: claim.file, field, reason };
    problems.push(claim.skill === undefined ? problem : { ...problem, skill: claim.skill });
  };
  return {
    reserve(name, owner) {
      owners.set(name, owner);
    },
    claim(claim) {
      const plain = plainToolName(claim);
      let name = plain;
      if (name.length > maxLength) {
        // The hash is of the full name, so the same long name always gets the same short one.
        name = shortenToolName(claim, shortHash(plain), maxLength);
        report(claim, 'TOOL_NAME_TRUNCATED', name, `${plain} is longer than ${maxLength} chars`);
      }
      const firstOwner = owners.get(name);
      if (firstOwner !== undefined) {
        const wanted = name;
        // Later claimants move away, never the first: a loop, because even the new name may be taken.
        for (let attempt = 1; owners.has(name); attempt++) {
          const seed = attempt === 1 ? claim.identity : `${claim.identity}\0${attempt}`;
          name = shortenToolName(claim, shortHash(seed), maxLength);
        }
        report(
          claim,
          'TOOL_NAME_CLASH',
          name,
          `${wanted} is taken by the ${firstOwner}; this ${claim.owner} is ${name}`,
        );
      }
      owners.set(name, claim.owner);
      return name;
    },
  };
}
