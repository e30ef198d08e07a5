/**
 * French messages shared by server and web. The server answers with them; the web shows them.
 * Wording comes from the specification where it gives one.
 */
export const MESSAGES = {
  notAuthenticated: 'Non authentifié',
  sessionExpired: 'Session expirée',
  forbidden: 'Accès refusé',
  noEditRight: 'Vous n’avez pas les droits pour modifier ce paramètre',
  notFound: 'Ressource introuvable',
  invalidRequest: 'Requête invalide',
  payloadTooLarge: 'Requête trop volumineuse',
  tooManyRequests: 'Trop de requêtes. Veuillez réessayer dans quelques minutes.',
  internalError: 'Erreur interne du serveur',
  /** A dependency (database, Redis) is down: answered with 503 and Retry-After (issue 26). */
  serviceUnavailable: 'Service momentanément indisponible, nouvel essai dans quelques secondes',
  /** 507: the server's disk (or its database's) is full; nothing was written. */
  diskFull: 'Espace disque insuffisant sur le serveur',
  adminInvalidCredentials: 'Identifiants invalides',
  adminLoginRequired: 'Nom d’utilisateur et mot de passe requis',
  accountDisabled: 'Compte désactivé',
  unknownSettingsCategory: 'Catégorie de paramètres inconnue',
  unknownSettingKey: 'Paramètre inconnu',
  invalidSettingValue: 'Valeur de paramètre invalide',
  logRejected: 'Entrée de journal invalide',
} as const;

/**
 * 403: a cookie-authenticated write without the session's anti-forgery token (issue 27, L5). Kept
 * out of MESSAGES, which the web app's first load carries: the page never needs to show it (it
 * retries once with the CSRF cookie the refusal set).
 */
export const CSRF_REFUSED_MESSAGE =
  'Requête refusée\u202f: jeton anti-falsification manquant ou invalide. Rechargez la page.';
