/** The last `count` lines of `text`, and whether anything before them was cut (live tails and job records). */
export function lastLines(text: string, count: number): { text: string; cut: boolean } {
  if (count <= 0) return { text: '', cut: text.length > 0 };
  // A final newline ends the last line; it does not start an empty one.
  let pos = text.endsWith('\n') ? text.length - 1 : text.length;
  for (let i = 0; i < count; i++) {
    const newline = pos > 0 ? text.lastIndexOf('\n', pos - 1) : -1;
    if (newline < 0) return { text, cut: false };
    pos = newline;
  }
  return { text: text.slice(pos + 1), cut: true };
}
