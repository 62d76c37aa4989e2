import { shortHash } from './shortHash.js';
import type { Problem } from './types.js';

/** Who asks for a tool name: enough to derive a stable hash and to report a clash. */
export interface NameClaim {
  /** The name as DESIGN §3 builds it, before truncation and clash handling. */
  readonly plain: string;
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

const HASH_SUFFIX = 7; // `_` + 6 hex chars

/** `base_hash`, cutting `base` so that the result fits in `maxLength`. */
export function withHashSuffix(base: string, hash: string, maxLength: number): string {
  if (base.length + HASH_SUFFIX <= maxLength) return `${base}_${hash}`;
  return `${base.slice(0, maxLength - HASH_SUFFIX).replace(/[_-]+$/, '')}_${hash}`;
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
      let name = claim.plain;
      if (name.length > maxLength) {
        name = withHashSuffix(claim.plain, shortHash(claim.plain), maxLength);
        report(claim, 'TOOL_NAME_TRUNCATED', name, `${claim.plain} is longer than ${maxLength} chars`);
      }
      const firstOwner = owners.get(name);
      if (firstOwner !== undefined) {
        const wanted = name;
        // Later claimants move away, never the first: a loop, because even the new name may be taken.
        for (let attempt = 1; owners.has(name); attempt++) {
          const seed = attempt === 1 ? claim.identity : `${claim.identity}\0${attempt}`;
          name = withHashSuffix(claim.plain, shortHash(seed), maxLength);
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
