import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context';

/** Filled by its feature's work. */
export async function backupRoutes(_app: FastifyInstance, _ctx: AppContext): Promise<void> {}
