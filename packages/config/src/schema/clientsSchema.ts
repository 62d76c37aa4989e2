import { DISCLOSURES } from '@skillgate/skills';
import { z } from 'zod';
import { glob } from './fieldTypes.js';

/** One `clients` profile. */
export const clientSchema = z.strictObject({
  match: z
    .strictObject({ name: glob.optional(), principal: glob.optional() })
    .refine((m) => m.name !== undefined || m.principal !== undefined, {
      message: 'give name and/or principal',
    }),
  disclosure: z.enum(DISCLOSURES),
});
