import { z } from 'zod';
import { count } from './fieldTypes.js';

/** The `resources` config section. */
export const resourcesSchema = z.strictObject({
  max_text_bytes: count(1024).default(262_144).describe('Read tools cut longer text files, with a note.'),
  max_binary_bytes: count(1024).default(5_242_880).describe('Read tools refuse larger binary files.'),
});
