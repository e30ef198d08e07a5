import { frenchTypography } from '../text/typography';

/**
 * Default legal pages (spec 1 §2 "Terms, privacy, legal"): registration requires accepting the CGU
 * and the privacy policy, so a new installation ships French models instead of "not configured".
 * Each says it is a model to adapt; the operator completes the bracketed parts in the back office
 * (Site → Pages légales). Seeded into empty settings only: an administrator's text is never replaced.
 */

const MODEL_NOTICE = `<p><strong>Modèle à adapter.</strong> Ce texte est fourni par défaut avec SecureRing : complétez les
passages entre crochets et faites-le relire par un professionnel du droit avant de l'utiliser.
Il se modifie dans l'administration, onglet « Site », section « Pages légales ».</p>`;

export const DEFAULT_TERMS_HTML = frenchTypography(`${MODEL_NOTICE}
<h1>Conditions générales d'utilisation et de vente</h1>
<p>Dernière mise à jour : [date].</p>
<h2>1. Objet</h2>
<p>Les présentes conditions régissent l'accès au service SecureRing édité par [raison sociale]
(ci-après « l'Éditeur ») et son utilisation par toute personne qui crée un compte client
(ci-après « le Client ») ou rejoint un Ring sur invitation (ci-après « le Membre »).</p>
<h2>2. Description du service</h2>
<p>SecureRing fournit des espaces de communication privés, appelés Rings : messagerie de groupe et
messages privés chiffrés de bout en bout, appels vocaux, visioconférence selon l'offre et partage de
fichiers selon l'offre. Le contenu des messages et des fichiers est chiffré dans le navigateur des
participants ; l'Éditeur n'en détient pas les clés.</p>
<h2>3. Compte client et Rings</h2>
<p>Le Client fournit des informations exactes lors de son inscription et garde son mot de passe
confidentiel. Il crée des Rings dans la limite de son offre, y invite des Membres et reste responsable
de l'usage qui en est fait. Chaque Membre choisit une phrase secrète personnelle : elle n'est jamais
transmise à l'Éditeur, qui ne peut pas la retrouver en cas d'oubli.</p>
<h2>4. Offres, prix et paiement</h2>
<p>Les offres et leurs prix sont affichés sur le site en euros toutes taxes comprises. L'abonnement
est mensuel ou annuel ; le prix annuel correspond à dix mois (deux mois offerts). L'option vidéo,
lorsqu'elle est proposée, s'ajoute au prix du plan. Le paiement s'effectue par carte bancaire, PayPal
ou crypto-monnaie. Un abonnement payé par carte se renouvelle automatiquement à chaque échéance ; un
abonnement payé autrement prend fin à son échéance, sauf nouveau paiement.</p>
<h2>5. Résiliation</h2>
<p>Le Client peut annuler le renouvellement à tout moment depuis son espace client, onglet
« Abonnement » : l'abonnement reste actif jusqu'à la fin de la période payée. À son terme, les Rings
du Client sont suspendus. [Préciser la durée de conservation des données après la fin de
l'abonnement et les conditions de remboursement éventuel.]</p>
<h2>6. Droit de rétractation</h2>
<p>[Pour les Clients consommateurs : préciser les conditions d'exercice du droit de rétractation de
quatorze jours, ou sa renonciation expresse lorsque le service commence avant la fin de ce délai.]</p>
<h2>7. Usage acceptable</h2>
<p>Le service ne doit pas être utilisé pour des activités illicites, pour porter atteinte aux droits
de tiers ou pour perturber son fonctionnement. L'Éditeur peut suspendre un compte en cas de
manquement grave, après en avoir informé le Client lorsque c'est possible.</p>
<h2>8. Disponibilité et responsabilité</h2>
<p>L'Éditeur met en œuvre les moyens raisonnables pour assurer la disponibilité et la sécurité du
service, sans garantir une disponibilité ininterrompue. [Préciser les limites de responsabilité
applicables.]</p>
<h2>9. Données personnelles</h2>
<p>Le traitement des données personnelles est décrit dans la <a href="/privacy">politique de
confidentialité</a>.</p>
<h2>10. Droit applicable et litiges</h2>
<p>Les présentes conditions sont soumises au droit français. [Préciser le médiateur de la consommation
et la juridiction compétente.] Contact : [adresse email de contact].</p>`);

export const DEFAULT_PRIVACY_HTML = frenchTypography(`${MODEL_NOTICE}
<h1>Politique de confidentialité</h1>
<p>Dernière mise à jour : [date].</p>
<h2>1. Responsable du traitement</h2>
<p>[Raison sociale], [adresse], représentée par [nom du représentant]. Contact pour toute question sur
vos données : [adresse email du délégué à la protection des données ou du contact].</p>
<h2>2. Ce que nous ne voyons pas</h2>
<p>Les messages, les appels et les fichiers échangés dans un Ring sont chiffrés de bout en bout dans
le navigateur des participants. Nous ne détenons ni les phrases secrètes ni les clés de
déchiffrement : nous ne pouvons pas lire ces contenus.</p>
<h2>3. Données que nous traitons</h2>
<ul>
<li>Compte client : nom, prénom, email, société, téléphone, adresse de facturation, mot de passe
(conservé sous forme d'empreinte), dates d'acceptation des conditions.</li>
<li>Abonnement et paiements : offre, période, montants, références de transaction. Les données de
carte bancaire sont traitées par le prestataire de paiement, pas par nous.</li>
<li>Rings : noms des Rings, noms d'utilisateur et emails des Membres, rôles, dates de connexion, et
les métadonnées nécessaires au service (qui échange avec qui et quand, taille des messages et des
fichiers chiffrés).</li>
<li>Journaux techniques : adresse IP, navigateur, événements de connexion et erreurs, pour la
sécurité du service.</li>
</ul>
<h2>4. Finalités et bases légales</h2>
<p>Fournir le service et gérer l'abonnement (exécution du contrat) ; facturer et tenir la
comptabilité (obligation légale) ; sécuriser le service et prévenir les abus (intérêt légitime) ;
mesurer l'audience lorsque vous l'acceptez (consentement).</p>
<h2>5. Durées de conservation</h2>
<p>[Préciser : durée du compte et de l'abonnement, puis [durée] ; pièces comptables : dix ans ;
journaux techniques : [durée].] Les messages éphémères sont effacés à leur échéance.</p>
<h2>6. Destinataires et sous-traitants</h2>
<p>Hébergeur : [nom et pays]. Prestataires de paiement : Stripe, PayPal, NOWPayments selon le moyen
choisi. Envoi des emails : [prestataire]. [Préciser tout transfert hors de l'Union européenne et ses
garanties.]</p>
<h2>7. Cookies</h2>
<p>Des cookies indispensables conservent votre session et votre choix de consentement. Les cookies
fonctionnels, de mesure d'audience et marketing ne sont déposés qu'avec votre accord, modifiable à
tout moment depuis le bandeau des cookies.</p>
<h2>8. Vos droits</h2>
<p>Vous disposez des droits d'accès, de rectification, d'effacement, de limitation, d'opposition et
de portabilité, et du droit de définir des directives sur le sort de vos données après votre décès.
Écrivez à [adresse email de contact]. Vous pouvez introduire une réclamation auprès de la CNIL
(www.cnil.fr).</p>`);

export const DEFAULT_LEGAL_NOTICE_HTML = frenchTypography(`${MODEL_NOTICE}
<h1>Mentions légales</h1>
<h2>Éditeur du site</h2>
<p>[Raison sociale], [forme juridique] au capital de [montant] euros, immatriculée au RCS de [ville]
sous le numéro [numéro], dont le siège est situé [adresse].<br>
Numéro de TVA intracommunautaire : [numéro].<br>
Téléphone : [numéro] — Email : [adresse email de contact].</p>
<h2>Directeur de la publication</h2>
<p>[Nom et qualité].</p>
<h2>Hébergement</h2>
<p>[Nom de l'hébergeur], [adresse], [téléphone].</p>
<h2>Propriété intellectuelle</h2>
<p>Les éléments du site (textes, marques, logos, logiciels) sont protégés. Toute reproduction sans
autorisation est interdite.</p>
<h2>Données personnelles</h2>
<p>Voir la <a href="/privacy">politique de confidentialité</a>.</p>`);
