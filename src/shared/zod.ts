// zod's light API (zod/mini): the same checks as the classic one, without ~50 methods built onto every schema.
// Messages in English, as the classic API sets them. Import it as a namespace (`import * as z`): the bundle then
// keeps only the parts used.
import { en } from 'zod/locales';
import { config } from 'zod/mini';

config(en());

export * from 'zod/mini';
