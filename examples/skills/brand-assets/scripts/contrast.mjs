#!/usr/bin/env node
// WCAG 2.x contrast ratio of two colours, with AA/AAA verdicts.
// Usage: contrast.mjs [--json] FOREGROUND BACKGROUND
//   colours: #rgb, #rrggbb (the # is optional) or a name from assets/palette.json
// Exit 0 on success, 1 on an invalid colour, 2 on wrong usage.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const USAGE = 'usage: contrast.mjs [--json] FOREGROUND BACKGROUND   (e.g. "#1F4E8C" "#FFFFFF" or gate-blue paper)';

function loadPalette() {
  try {
    const file = join(dirname(fileURLToPath(import.meta.url)), '..', 'assets', 'palette.json');
    return JSON.parse(readFileSync(file, 'utf8')).colors ?? {};
  } catch {
    return {};
  }
}

function parseColour(input, palette) {
  const named = palette[input.toLowerCase()];
  const value = named ? named.hex : input.trim();
  const m = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(value);
  if (!m) return undefined;
  const hex = m[1].length === 3 ? [...m[1]].map((c) => c + c).join('') : m[1];
  return { hex: `#${hex.toUpperCase()}`, rgb: [0, 2, 4].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)) };
}

// Relative luminance, WCAG 2.x definition.
function luminance([r, g, b]) {
  const lin = (c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

const args = process.argv.slice(2);
const json = args.includes('--json');
const colours = args.filter((a) => a !== '--json');
if (colours.length !== 2 || colours.some((a) => a.startsWith('--'))) {
  process.stderr.write(`contrast: expected exactly two colours\n${USAGE}\n`);
  process.exit(2);
}
const palette = loadPalette();
const parsed = colours.map((c) => parseColour(c, palette));
const badIndex = parsed.findIndex((p) => p === undefined);
if (badIndex !== -1) {
  const names = Object.keys(palette);
  process.stderr.write(
    `contrast: invalid colour "${colours[badIndex]}": use #rgb or #rrggbb hex` +
      (names.length ? ` or a palette name (${names.join(', ')})` : '') + '\n',
  );
  process.exit(1);
}

const [fg, bg] = parsed;
const [l1, l2] = [luminance(fg.rgb), luminance(bg.rgb)].sort((a, b) => b - a);
const ratio = (l1 + 0.05) / (l2 + 0.05);
// Never round up: 4.499 must not display as 4.50 and pass.
const shown = Math.floor(ratio * 100) / 100;
const checks = [
  ['AA normal text', 4.5],
  ['AA large text', 3],
  ['AAA normal text', 7],
  ['AAA large text', 4.5],
].map(([label, min]) => ({ label, min, pass: ratio >= min }));

if (json) {
  const result = { foreground: fg.hex, background: bg.hex, ratio: shown };
  for (const c of checks) result[c.label.toLowerCase().replaceAll(' ', '_')] = c.pass;
  process.stdout.write(`${JSON.stringify(result)}\n`);
} else {
  const lines = [`contrast ${fg.hex} on ${bg.hex}: ${shown.toFixed(2)}:1`];
  for (const c of checks) lines.push(`${c.label} (>= ${c.min}:1): ${c.pass ? 'pass' : 'fail'}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}
