import {
  ArrowRight,
  KeyRound,
  Lock,
  MessageSquare,
  Phone,
  Shield,
  ShieldCheck,
  Timer,
  Users,
  Video,
} from 'lucide-react';
import { Link } from 'react-router';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card';
import { useGeneralSettings, usePageTitle } from '@/lib/site-settings';
import { PlansGrid } from './plans-grid';

const SECURITY_LEVELS = [
  { name: 'Basic', cipher: 'AES-128', text: 'Chiffrement solide pour un usage standard.', icon: Lock },
  {
    name: 'Standard',
    cipher: 'AES-256',
    text: 'Le niveau recommandé pour les entreprises.',
    icon: Shield,
    recommended: true,
  },
  {
    name: 'Militaire',
    cipher: 'Double AES + sel',
    text: 'Protection de niveau gouvernemental.',
    icon: ShieldCheck,
  },
] as const;

const ADVANCED = [
  {
    title: 'Passphrase personnelle',
    text: 'Chaque membre a sa propre phrase secrète\u202f: ses clés sont dérivées dans son navigateur et ne nous parviennent jamais.',
    icon: KeyRound,
  },
  {
    title: 'Messages éphémères',
    text: 'Les messages s’autodétruisent après lecture, selon le délai que vous choisissez.',
    icon: Timer,
  },
  {
    title: 'Gestion d’équipe',
    text: 'Invitez vos collaborateurs avec des identifiants générés, gérez les accès et retirez-les en un clic.',
    icon: Users,
  },
] as const;

export function HomePage() {
  usePageTitle();
  const general = useGeneralSettings();
  const siteName = general.site_name || 'SecureRing';
  return (
    <main>
      <section className="bg-gradient-to-b from-white to-slate-50">
        <div className="mx-auto flex max-w-6xl flex-col items-center gap-6 px-4 py-16 text-center md:py-24">
          <Badge variant="default" className="px-3 py-1 text-sm">
            <Lock className="size-3.5" aria-hidden /> Chiffrement de bout en bout
          </Badge>
          <h1 className="max-w-3xl text-4xl font-extrabold tracking-tight text-slate-900 md:text-5xl">
            {general.tagline || 'Vos échanges d’équipe, chiffrés de bout en bout'}
          </h1>
          <p className="max-w-2xl text-lg text-slate-600">
            {siteName} crée pour votre équipe des espaces privés — les Rings — avec chat, appels et partage de
            fichiers. Tout est chiffré dans vos navigateurs&#8239;: même nous ne pouvons pas lire vos
            échanges.
          </p>
          <ul className="flex flex-wrap justify-center gap-3" aria-label="Fonctionnalités">
            {[
              { label: 'Chat Sécurisé', icon: MessageSquare },
              { label: 'Appels Vocaux', icon: Phone },
              { label: 'Visioconférence', icon: Video },
            ].map(({ label, icon: Icon }) => (
              <li
                key={label}
                className="flex items-center gap-2 rounded-full border border-slate-200 bg-white px-4 py-2 text-sm font-medium shadow-sm"
              >
                <Icon className="size-4 text-primary" aria-hidden />
                {label}
              </li>
            ))}
          </ul>
          <div className="flex flex-wrap justify-center gap-3">
            <Button asChild size="lg">
              <Link to="/register">
                Commencer <ArrowRight aria-hidden />
              </Link>
            </Button>
            <Button asChild size="lg" variant="outline">
              <a href="#plans">Voir les offres</a>
            </Button>
          </div>
        </div>
      </section>

      <section className="mx-auto max-w-6xl px-4 py-16" aria-labelledby="levels-title">
        <h2 id="levels-title" className="text-center text-3xl font-bold">
          Trois niveaux de sécurité
        </h2>
        <p className="mx-auto mt-2 max-w-2xl text-center text-slate-600">
          Choisissez la protection adaptée à chaque Ring.
        </p>
        <div className="mt-10 grid gap-6 md:grid-cols-3">
          {SECURITY_LEVELS.map((level) => (
            <Card key={level.name} className={'recommended' in level ? 'border-primary' : undefined}>
              <CardHeader>
                <level.icon className="size-8 text-primary" aria-hidden />
                <CardTitle>{level.name}</CardTitle>
                <p className="font-mono text-sm text-primary">{level.cipher}</p>
              </CardHeader>
              <CardContent className="text-slate-600">{level.text}</CardContent>
            </Card>
          ))}
        </div>
      </section>

      {/* Below the fold on a phone: laid out and painted only when scrolled near. */}
      <section
        id="plans"
        className="scroll-mt-20 bg-white py-16 [contain-intrinsic-size:auto_1200px] [content-visibility:auto]"
        aria-labelledby="plans-title"
      >
        <div className="mx-auto max-w-6xl px-4">
          <h2 id="plans-title" className="text-center text-3xl font-bold">
            Nos offres
          </h2>
          <p className="mx-auto mt-2 max-w-2xl text-center text-slate-600">
            Sans engagement. Le plan se choisit après la vérification de votre email.
          </p>
          <div className="mt-10">
            <PlansGrid />
          </div>
        </div>
      </section>

      <section
        className="mx-auto max-w-6xl px-4 py-16 [contain-intrinsic-size:auto_800px] [content-visibility:auto]"
        aria-labelledby="advanced-title"
      >
        <h2 id="advanced-title" className="text-center text-3xl font-bold">
          Fonctionnalités avancées
        </h2>
        <div className="mt-10 grid gap-6 md:grid-cols-3">
          {ADVANCED.map((feature) => (
            <div key={feature.title} className="rounded-xl border border-slate-200 bg-white p-6">
              <feature.icon className="size-8 text-primary" aria-hidden />
              <h3 className="mt-4 text-lg font-semibold">{feature.title}</h3>
              <p className="mt-2 text-slate-600">{feature.text}</p>
            </div>
          ))}
        </div>
      </section>
    </main>
  );
}
