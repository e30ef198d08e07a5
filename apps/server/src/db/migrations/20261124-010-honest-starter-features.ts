import type { Kysely } from 'kysely';

/**
 * The starter plan was seeded with "Partage de fichiers", which starter Rings never had (spec 2 §6,
 * `fileSharingAllowed`). Databases whose starter plan still lists exactly the seeded features get
 * the honest list; a list an administrator edited is left alone. The lists are frozen here.
 */
const SEEDED = JSON.stringify([
  'Chiffrement Standard',
  'Rings: 1',
  'Chat sécurisé',
  'Appels vocaux',
  'Partage de fichiers',
  'Espace disque: 5 Go',
]);
const HONEST = JSON.stringify([
  'Chiffrement Standard',
  'Rings: 1',
  'Chat sécurisé',
  'Appels vocaux',
  'Espace disque: 5 Go',
]);

interface PlansOnly {
  plans: { slug: string; features: string; updated_at: string };
}

async function replaceFeatures(db: Kysely<unknown>, from: string, to: string): Promise<void> {
  await (db as Kysely<PlansOnly>)
    .updateTable('plans')
    .set({ features: to, updated_at: new Date().toISOString() })
    .where('slug', '=', 'starter')
    .where('features', '=', from)
    .execute();
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await replaceFeatures(db, SEEDED, HONEST);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await replaceFeatures(db, HONEST, SEEDED);
}
