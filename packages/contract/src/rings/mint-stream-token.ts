import { z } from 'zod';
import { successOf } from '../common';

/** POST /api/rings/mint-stream-token.php — Ring session required, no body. */
export const ZMintStreamTokenResponse = successOf({ stream_token: z.string(), expires_in: z.number() });
export type TMintStreamTokenResponse = z.infer<typeof ZMintStreamTokenResponse>;
