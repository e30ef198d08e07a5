import {
  CameraOff,
  EyeOff,
  Fingerprint,
  KeyRound,
  Lock,
  MessageCircle,
  ShieldCheck,
  Timer,
  UserCheck,
} from 'lucide-react';

/** What « À propos de la sécurité » explains (loaded with the dialog). */
const POINTS = [
  {
    icon: Lock,
    title: 'Chiffrement de bout en bout',
    text: 'Les messages et les fichiers sont chiffrés dans votre navigateur avec la clé du Ring, qui change quand un membre part et régulièrement. Le serveur ne stocke et ne transmet que des données illisibles.',
  },
  {
    icon: KeyRound,
    title: 'Une phrase secrète personnelle',
    text: 'Chaque membre choisit sa propre phrase secrète. Elle protège ses clés et ne quitte jamais son navigateur\u202f: personne ne peut la récupérer, pas même SecureRing. En cas d’oubli, «\u202fRéinitialiser mes clés\u202f» en crée de nouvelles\u202f; une fois confirmées par le propriétaire ou un admin du Ring, l’historique depuis votre admission vous est repartagé automatiquement.',
  },
  {
    icon: UserCheck,
    title: 'Les membres décident qui lit',
    text: 'Qui fait partie du Ring, avec quelles clés, est inscrit dans un journal signé par les membres et vérifié par chaque navigateur. Un nouveau venu ne lit rien tant que le propriétaire ou un admin du Ring ne l’a pas admis dans le salon, après avoir comparé son numéro de sécurité\u202f; il lit à partir de son admission, l’historique seulement s’il lui est partagé. Ni le serveur, ni l’espace client, ni un administrateur de SecureRing ne peuvent ajouter un lecteur.',
  },
  {
    icon: Fingerprint,
    title: 'Numéros de sécurité',
    text: 'Comparez votre numéro de sécurité avec celui qu’affiche l’autre membre, par un autre moyen, puis marquez-le «\u202fVérifié\u202f». Si la clé d’un membre change, un avertissement s’affiche et rien ne lui est partagé avant qu’un admin la confirme\u202f; si vous l’aviez vérifié, vos messages ne partent plus avant une nouvelle comparaison.',
  },
  {
    icon: MessageCircle,
    title: 'Messages privés',
    text: 'Un message privé est chiffré avec une clé que seuls ses deux participants peuvent calculer (leur clé personnelle et la clé du Ring)\u202f: les autres membres du Ring ne peuvent pas le lire.',
  },
  {
    icon: Timer,
    title: 'Messages éphémères',
    text: 'Quand le Ring les active, chaque message affiche un compte à rebours puis disparaît de tous les écrans au terme du délai choisi\u202f; le serveur le supprime et il n’entre dans aucune sauvegarde. Un destinataire a pu le lire, et le recopier, avant.',
  },
  {
    icon: CameraOff,
    title: 'Protection anti-capture',
    text: 'Selon le niveau choisi par le propriétaire\u202f: le contenu est masqué quelques secondes après un raccourci de capture (Impr. écran, Maj+Cmd+3/4/5, F12…), et tant que la fenêtre n’est pas au premier plan\u202f; le clic droit est bloqué\u202f; aux niveaux standard et maximal, la sélection et le glisser sont bloqués et un filigrane à votre nom et à la date couvre la conversation, pour qu’une capture désigne son auteur. La détection d’enregistrement (expérimentale) ne voit qu’un partage d’écran lancé depuis cette page. Cela décourage la copie occasionnelle\u202f: aucune page web ne peut empêcher une capture d’écran, un logiciel d’enregistrement ou une photo de l’écran.',
  },
  {
    icon: ShieldCheck,
    title: 'Rien n’est stocké en clair',
    text: 'Ni vos messages, ni vos fichiers, ni leurs noms, ni votre phrase secrète ne sont conservés en clair sur nos serveurs.',
  },
  {
    icon: EyeOff,
    title: 'Ce que le chiffrement ne cache pas',
    text: 'Le serveur voit les métadonnées\u202f: qui est membre, qui écrit et quand, la taille des messages et des fichiers. Il peut retarder ou retenir des messages. La première clé d’un nouveau venu est celle que le serveur présente\u202f: seule la comparaison du numéro de sécurité à l’admission prouve qu’elle est la sienne.',
  },
  {
    icon: ShieldCheck,
    title: 'Comparé à Signal, Matrix et MLS',
    text: 'Comme MLS et les chaînes signées de Keybase, les changements de membres sont signés par des membres et vérifiés par chacun. Comme Signal, les numéros de sécurité se comparent hors ligne. Contrairement à Matrix, un appareil non admis ne reçoit jamais de clé. Contrairement à Signal et MLS, la clé du Ring change par période et non à chaque message.',
  },
] as const;

export function SecurityPoints() {
  return (
    <ul className="space-y-4">
      {POINTS.map(({ icon: Icon, title, text }) => (
        <li key={title} className="flex gap-3">
          <Icon className="mt-0.5 size-5 shrink-0 text-primary" aria-hidden />
          <div>
            <p className="font-medium">{title}</p>
            <p className="text-sm text-slate-600">{text}</p>
          </div>
        </li>
      ))}
    </ul>
  );
}
