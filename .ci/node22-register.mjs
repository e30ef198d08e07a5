// Loaded with --import by .ci/node22-tests.sh: installs node22-hooks.mjs in every Node process.
import { register } from 'node:module';

register('./node22-hooks.mjs', import.meta.url);
