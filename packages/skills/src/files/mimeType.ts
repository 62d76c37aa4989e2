const BY_EXTENSION: ReadonlyMap<string, string> = new Map([
  ['md', 'text/markdown'],
  ['markdown', 'text/markdown'],
  ['txt', 'text/plain'],
  ['log', 'text/plain'],
  ['json', 'application/json'],
  ['jsonl', 'application/jsonl'],
  ['yaml', 'application/yaml'],
  ['yml', 'application/yaml'],
  ['toml', 'application/toml'],
  ['csv', 'text/csv'],
  ['tsv', 'text/tab-separated-values'],
  ['py', 'text/x-python'],
  ['sh', 'application/x-sh'],
  ['bash', 'application/x-sh'],
  ['js', 'text/javascript'],
  ['mjs', 'text/javascript'],
  ['cjs', 'text/javascript'],
  ['ts', 'text/typescript'],
  ['rb', 'text/x-ruby'],
  ['sql', 'application/sql'],
  ['html', 'text/html'],
  ['htm', 'text/html'],
  ['css', 'text/css'],
  ['xml', 'application/xml'],
  ['svg', 'image/svg+xml'],
  ['png', 'image/png'],
  ['jpg', 'image/jpeg'],
  ['jpeg', 'image/jpeg'],
  ['gif', 'image/gif'],
  ['webp', 'image/webp'],
  ['ico', 'image/x-icon'],
  ['pdf', 'application/pdf'],
  ['zip', 'application/zip'],
  ['gz', 'application/gzip'],
  ['tar', 'application/x-tar'],
  ['docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
  ['xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
  ['pptx', 'application/vnd.openxmlformats-officedocument.presentationml.presentation'],
  ['woff2', 'font/woff2'],
  ['ttf', 'font/ttf'],
  ['mp3', 'audio/mpeg'],
  ['wav', 'audio/wav'],
  ['mp4', 'video/mp4'],
]);

/** MIME type of a skill file by extension; unknown extensions fall back on whether the content is text. */
export function mimeTypeOf(path: string, isBinary: boolean): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  const known = dot > 0 ? BY_EXTENSION.get(base.slice(dot + 1).toLowerCase()) : undefined;
  return known ?? (isBinary ? 'application/octet-stream' : 'text/plain');
}
