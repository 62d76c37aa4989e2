// What WHATWG URL leaves alone in a path segment, minus `%`, `/`, `\`, `?` and `#`: a URI built from these
// segments parses back to itself, so a host that normalizes it (new URL(uri).href) gets the same string.
const ENCODED_IN_SEGMENT = /[^\w!$&'()*+,.:;=@[\]|~-]/gu;

const encodeSegment = (segment: string): string =>
  segment.replaceAll(ENCODED_IN_SEGMENT, (char) => encodeURIComponent(char));

/**
 * The `skill://` URI of a file of a skill: `skill://<name>/<path>`, the name as the authority and each path
 * segment percent-encoded (docs/skills-extension.md). `skillUri(name, 'SKILL.md')` is the skill's URI.
 */
export function skillUri(skillName: string, path: string): string {
  return `skill://${encodeURIComponent(skillName)}/${path.split('/').map(encodeSegment).join('/')}`;
}
