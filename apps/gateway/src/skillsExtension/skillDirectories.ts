import type { Resource } from '@modelcontextprotocol/server';
import type { Skill } from '@modelcontextprotocol/server/ext/skills';
import type { Catalog } from '@skillgate/skills';

/** The MIME type of a folder in resources/directory/read (SEP-2640's `inode/directory`). */
const DIRECTORY_MIME_TYPE = 'inode/directory';

const byUri = (a: Resource, b: Resource): number => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0);

/**
 * The folders of the given skill entries, each with its direct children as resources/directory/read lists
 * them (docs/skills-extension.md): a skill's folder is `skill://<name>` (no trailing slash), a subfolder
 * `skill://<name>/references`; files carry their MIME type and size, folders `inode/directory`. Built from
 * the entries' own manifests, so a folder lists exactly the files the entry publishes, sorted by URI.
 */
export function skillDirectories(
  catalog: Catalog,
  entries: readonly Skill[],
): ReadonlyMap<string, readonly Resource[]> {
  const children = new Map<string, Resource[]>();
  const add = (dir: string, child: Resource) => {
    let list = children.get(dir);
    if (list === undefined) {
      list = [];
      children.set(dir, list);
    }
    if (!list.some((known) => known.uri === child.uri)) list.push(child);
  };
  for (const entry of entries) {
    const root = entry.uri.slice(0, -'/SKILL.md'.length);
    if (!children.has(root)) children.set(root, []);
    const resources = Array.isArray(entry.resources) ? entry.resources : [];
    for (const resource of resources) {
      const target = catalog.extension.resolveUri(resource.uri);
      if (target === undefined || !resource.uri.startsWith(`${root}/`)) continue;
      const segments = resource.uri.slice(root.length + 1).split('/');
      let dir = root;
      for (const segment of segments.slice(0, -1)) {
        const sub = `${dir}/${segment}`;
        add(dir, { uri: sub, name: decodeURIComponent(segment), mimeType: DIRECTORY_MIME_TYPE });
        if (!children.has(sub)) children.set(sub, []);
        dir = sub;
      }
      const name = decodeURIComponent(segments[segments.length - 1] ?? '');
      add(dir, { uri: resource.uri, name, mimeType: target.file.mimeType, size: resource.size });
    }
  }
  const frozen = new Map<string, readonly Resource[]>();
  for (const [dir, list] of children) frozen.set(dir, Object.freeze(list.sort(byUri)));
  return frozen;
}
