/**
 * French default email templates, seeded on first start and restored by "reset to default".
 * Placeholders use `{{name}}`; site_name and site_url are always available.
 */
export interface DefaultTemplate {
  name: string;
  subject: string;
  body_html: string;
  body_text: string;
  variables: string[];
}

function layout(title: string, inner: string): string {
  return `<!doctype html>
<html lang="fr"><body style="margin:0;background:#f1f5f9;font-family:Arial,Helvetica,sans-serif;color:#0f172a">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center" style="padding:24px">
<table role="presentation" width="600" cellpadding="0" cellspacing="0" style="background:#ffffff;border-radius:8px;padding:32px">
<tr><td>
<h1 style="font-size:20px;margin:0 0 16px">${title}</h1>
${inner}
<p style="margin-top:32px;font-size:12px;color:#64748b">{{site_name}} — communication privée, chiffrée de bout en bout.<br>{{site_url}}</p>
</td></tr></table>
</td></tr></table>
</body></html>`;
}

function button(url: string, label: string): string {
  return `<p style="margin:24px 0"><a href="${url}" style="background:#3b82f6;color:#ffffff;padding:12px 20px;border-radius:6px;text-decoration:none;display:inline-block">${label}</a></p>
<p style="font-size:12px;color:#64748b">Si le bouton ne fonctionne pas, copiez ce lien dans votre navigateur :<br>${url}</p>`;
}

export const DEFAULT_TEMPLATES: DefaultTemplate[] = [
  {
    name: 'welcome_verification',
    subject: 'Bienvenue sur {{site_name}} — confirmez votre adresse email',
    variables: ['first_name', 'verification_url', 'site_name', 'site_url'],
    body_html: layout(
      'Bienvenue {{first_name}} !',
      `<p>Merci pour votre inscription sur {{site_name}}.</p>
<p>Pour activer votre compte et choisir votre abonnement, confirmez votre adresse email :</p>
${button('{{verification_url}}', 'Activer mon compte')}
<p>Ce lien est valable 24 heures.</p>`,
    ),
    body_text: `Bienvenue {{first_name}} !

Merci pour votre inscription sur {{site_name}}.
Pour activer votre compte et choisir votre abonnement, ouvrez ce lien (valable 24 heures) :
{{verification_url}}

{{site_name}} — {{site_url}}`,
  },
  {
    name: 'password_reset',
    subject: 'Réinitialisation de votre mot de passe {{site_name}}',
    variables: ['first_name', 'reset_url', 'site_name', 'site_url'],
    body_html: layout(
      'Réinitialisation du mot de passe',
      `<p>Bonjour {{first_name}},</p>
<p>Une réinitialisation de mot de passe a été demandée pour votre compte.</p>
${button('{{reset_url}}', 'Choisir un nouveau mot de passe')}
<p>Ce lien est valable 1 heure et ne peut servir qu'une fois. Si vous n'êtes pas à l'origine de cette demande, ignorez cet email.</p>`,
    ),
    body_text: `Bonjour {{first_name}},

Une réinitialisation de mot de passe a été demandée pour votre compte.
Choisissez un nouveau mot de passe avec ce lien (valable 1 heure, à usage unique) :
{{reset_url}}

Si vous n'êtes pas à l'origine de cette demande, ignorez cet email.

{{site_name}} — {{site_url}}`,
  },
  {
    name: 'ring_password_reset',
    subject: 'Réinitialisation de votre mot de passe du Ring {{ring_name}}',
    variables: ['username', 'ring_name', 'reset_url', 'site_name', 'site_url'],
    body_html: layout(
      'Réinitialisation du mot de passe',
      `<p>Bonjour {{username}},</p>
<p>Une réinitialisation du mot de passe de votre accès au Ring « {{ring_name}} » a été demandée.</p>
${button('{{reset_url}}', 'Choisir un nouveau mot de passe')}
<p>Ce lien est valable 1 heure et ne peut servir qu'une fois. Vos clés de chiffrement ne changent pas : votre phrase secrète reste la même. Si vous n'êtes pas à l'origine de cette demande, ignorez cet email.</p>`,
    ),
    body_text: `Bonjour {{username}},

Une réinitialisation du mot de passe de votre accès au Ring « {{ring_name}} » a été demandée.
Choisissez un nouveau mot de passe avec ce lien (valable 1 heure, à usage unique) :
{{reset_url}}

Vos clés de chiffrement ne changent pas : votre phrase secrète reste la même.
Si vous n'êtes pas à l'origine de cette demande, ignorez cet email.

{{site_name}} — {{site_url}}`,
  },
  {
    name: 'account_exists',
    subject: 'Vous avez déjà un compte {{site_name}}',
    variables: ['first_name', 'login_url', 'reset_url', 'site_name', 'site_url'],
    body_html: layout(
      'Vous avez déjà un compte',
      `<p>Bonjour {{first_name}},</p>
<p>Une inscription vient d'être demandée avec votre adresse email, qui a déjà un compte {{site_name}}.</p>
<p>Connectez-vous à votre espace client, ou choisissez un nouveau mot de passe si vous l'avez oublié.</p>
${button('{{login_url}}', 'Me connecter')}
<p><a href="{{reset_url}}">Mot de passe oublié ?</a></p>
<p>Si vous n'êtes pas à l'origine de cette demande, ignorez cet email.</p>`,
    ),
    body_text: `Bonjour {{first_name}},

Une inscription vient d'être demandée avec votre adresse email, qui a déjà un compte {{site_name}}.
Connectez-vous : {{login_url}}
Mot de passe oublié : {{reset_url}}

Si vous n'êtes pas à l'origine de cette demande, ignorez cet email.`,
  },
  {
    name: 'payment_confirmation',
    subject: 'Confirmation de paiement — {{plan_name}}',
    variables: [
      'first_name',
      'plan_name',
      'amount',
      'billing_cycle',
      'reference',
      'expires_at',
      'site_name',
      'site_url',
    ],
    body_html: layout(
      'Paiement reçu',
      `<p>Bonjour {{first_name}},</p>
<p>Nous avons bien reçu votre paiement de <strong>{{amount}}</strong> pour le plan <strong>{{plan_name}}</strong> ({{billing_cycle}}).</p>
<p>Référence : {{reference}}<br>Abonnement actif jusqu'au {{expires_at}}.</p>
${button('{{site_url}}/client', 'Accéder à mon espace client')}`,
    ),
    body_text: `Bonjour {{first_name}},

Nous avons bien reçu votre paiement de {{amount}} pour le plan {{plan_name}} ({{billing_cycle}}).
Référence : {{reference}}
Abonnement actif jusqu'au {{expires_at}}.

Votre espace client : {{site_url}}/client`,
  },
  {
    name: 'payment_failed',
    subject: 'Échec du paiement de votre abonnement {{plan_name}}',
    variables: ['first_name', 'plan_name', 'amount', 'reason', 'site_name', 'site_url'],
    body_html: layout(
      'Le paiement a échoué',
      `<p>Bonjour {{first_name}},</p>
<p>Le paiement de <strong>{{amount}}</strong> pour votre plan <strong>{{plan_name}}</strong> n'a pas abouti : {{reason}}.</p>
<p>Mettez à jour votre moyen de paiement pour conserver l'accès à vos Rings.</p>
${button('{{site_url}}/client?tab=subscription', 'Gérer mon abonnement')}`,
    ),
    body_text: `Bonjour {{first_name}},

Le paiement de {{amount}} pour votre plan {{plan_name}} n'a pas abouti : {{reason}}.
Mettez à jour votre moyen de paiement pour conserver l'accès à vos Rings :
{{site_url}}/client?tab=subscription`,
  },
  {
    name: 'subscription_reminder',
    subject: 'Votre abonnement {{plan_name}} se termine bientôt',
    variables: ['first_name', 'plan_name', 'expires_at', 'renew_url', 'site_name', 'site_url'],
    body_html: layout(
      'Votre abonnement se termine bientôt',
      `<p>Bonjour {{first_name}},</p>
<p>Votre abonnement <strong>{{plan_name}}</strong> prendra fin le {{expires_at}} et ne sera pas renouvelé automatiquement.</p>
<p>Pour conserver l'accès à vos Rings, renouvelez-le avant cette date.</p>
${button('{{renew_url}}', 'Renouveler mon abonnement')}`,
    ),
    body_text: `Bonjour {{first_name}},

Votre abonnement {{plan_name}} prendra fin le {{expires_at}} et ne sera pas renouvelé automatiquement.
Pour conserver l'accès à vos Rings, renouvelez-le avant cette date :
{{renew_url}}`,
  },
  {
    name: 'contact_acknowledgement',
    subject: 'Nous avons bien reçu votre message — {{subject}}',
    variables: ['name', 'subject', 'site_name', 'site_url'],
    body_html: layout(
      'Message bien reçu',
      `<p>Bonjour {{name}},</p>
<p>Merci de nous avoir écrit au sujet de « {{subject}} ». Notre équipe vous répondra dans les 24 heures ouvrables.</p>`,
    ),
    body_text: `Bonjour {{name}},

Merci de nous avoir écrit au sujet de « {{subject}} ». Notre équipe vous répondra dans les 24 heures ouvrables.

{{site_name}} — {{site_url}}`,
  },
  {
    name: 'contact_notification',
    subject: '[Contact] {{subject}}',
    variables: ['name', 'email', 'subject', 'message', 'site_name', 'site_url'],
    body_html: layout(
      'Nouveau message de contact',
      `<p><strong>De :</strong> {{name}} &lt;{{email}}&gt;<br><strong>Sujet :</strong> {{subject}}</p>
<p style="white-space:pre-wrap">{{message}}</p>`,
    ),
    body_text: `Nouveau message de contact

De : {{name}} <{{email}}>
Sujet : {{subject}}

{{message}}`,
  },
  {
    name: 'ring_invitation',
    subject: 'Invitation à rejoindre le Ring {{ring_name}}',
    variables: [
      'username',
      'ring_name',
      'inviter_name',
      'invite_code',
      'invite_url',
      'message',
      'site_name',
      'site_url',
    ],
    body_html: layout(
      'Vous êtes invité à rejoindre un Ring',
      `<p>Bonjour {{username}},</p>
<p>{{inviter_name}} vous invite à rejoindre le Ring <strong>{{ring_name}}</strong> sur {{site_name}}, un espace de communication chiffré de bout en bout.</p>
<p style="white-space:pre-wrap">{{message}}</p>
<p>Votre code d'invitation : <strong>{{invite_code}}</strong></p>
${button('{{invite_url}}', 'Rejoindre le Ring')}`,
    ),
    body_text: `Bonjour {{username}},

{{inviter_name}} vous invite à rejoindre le Ring {{ring_name}} sur {{site_name}}.
{{message}}

Votre code d'invitation : {{invite_code}}
Rejoindre le Ring : {{invite_url}}`,
  },
  {
    name: 'ring_invitation_accepted',
    subject: '{{username}} a rejoint votre Ring {{ring_name}}',
    variables: [
      'first_name',
      'username',
      'ring_name',
      'accepted_at',
      'dashboard_url',
      'site_name',
      'site_url',
    ],
    body_html: layout(
      'Invitation acceptée',
      `<p>Bonjour {{first_name}},</p>
<p><strong>{{username}}</strong> a accepté son invitation et rejoint votre Ring <strong>{{ring_name}}</strong> le {{accepted_at}}.</p>
<p>Si vous n'attendiez pas cette arrivée, désactivez ce membre depuis votre espace client : son code d'invitation a pu être utilisé par quelqu'un d'autre.</p>
${button('{{dashboard_url}}', 'Voir les utilisateurs du Ring')}`,
    ),
    body_text: `Bonjour {{first_name}},

{{username}} a accepté son invitation et rejoint votre Ring {{ring_name}} le {{accepted_at}}.
Si vous n'attendiez pas cette arrivée, désactivez ce membre depuis votre espace client : son code d'invitation a pu être utilisé par quelqu'un d'autre.

Voir les utilisateurs du Ring : {{dashboard_url}}`,
  },
];
