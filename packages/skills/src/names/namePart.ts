/** Lowercases and sanitizes `raw` for use in a tool name (docs/skills.md, "Tool names"); the result may be empty. */
export function namePart(raw: string): string {
  return raw
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, '_')
    .replace(/_+/g, '_')
    .replace(/^[_-]+|[_-]+$/g, '');
}
