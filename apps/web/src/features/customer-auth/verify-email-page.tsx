import { ACCOUNT_MESSAGES, ZVerifyEmailResponse, type TVerifyEmailResponse } from '@securering/contract';
import { CheckCircle2, XCircle } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { PageShell } from '@/components/layout/page-shell';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { ApiError, apiRequest } from '@/lib/api-client';
import { useCustomerSession } from '@/lib/auth/customer-session';
import { ResendVerificationForm } from './resend-verification-form';

type State =
  | { kind: 'loading' }
  | { kind: 'success'; customer: TVerifyEmailResponse['customer'] }
  | { kind: 'error'; message: string };

/** After a successful verification the page logs in with the token, then goes on to /subscribe. */
const REDIRECT_MS = 2000;

export function VerifyEmailPage() {
  const [params] = useSearchParams();
  const token = params.get('token');
  const [state, setState] = useState<State>(() =>
    token ? { kind: 'loading' } : { kind: 'error', message: ACCOUNT_MESSAGES.verificationTokenMissing },
  );
  const session = useCustomerSession();
  const navigate = useNavigate();
  const started = useRef(false);

  useEffect(() => {
    // A verification link works once: never send it twice (StrictMode re-runs effects).
    if (!token || started.current) return;
    started.current = true;
    apiRequest(`/api/auth/verify-email.php?token=${encodeURIComponent(token)}`, {
      schema: ZVerifyEmailResponse,
      fallbackError: 'Erreur lors de la vérification',
    })
      .then(async (res) => {
        setState({ kind: 'success', customer: res.customer });
        await session.autoLogin(res.customer.email, token);
        setTimeout(() => navigate('/subscribe'), REDIRECT_MS);
      })
      .catch((error: unknown) => {
        setState({
          kind: 'error',
          message: error instanceof ApiError ? error.message : 'Erreur lors de la vérification',
        });
      });
  }, [token, session, navigate]);

  return (
    <PageShell title="Vérification de l’email" width="sm">
      <Card>
        <CardContent className="flex flex-col items-center gap-4 pt-6 text-center">
          {state.kind === 'loading' ? <Spinner label="Vérification de votre adresse email…" /> : null}
          {state.kind === 'success' ? (
            <>
              <CheckCircle2 className="size-12 text-emerald-600" aria-hidden />
              <h2 className="text-xl font-semibold">Bienvenue, {state.customer.first_name}&#8239;!</h2>
              <p className="text-slate-600">
                Votre adresse email est vérifiée. Choisissez maintenant votre abonnement.
              </p>
              <div className="flex flex-wrap justify-center gap-2">
                <Button asChild>
                  <Link to="/subscribe">Procéder à la souscription</Link>
                </Button>
                <Button asChild variant="outline">
                  <Link to="/">Retour à l’accueil</Link>
                </Button>
              </div>
            </>
          ) : null}
          {state.kind === 'error' ? (
            <>
              <XCircle className="size-12 text-red-500" aria-hidden />
              <Alert variant="error" className="w-full text-left">
                {state.message}
              </Alert>
              <div className="w-full text-left">
                <h2 className="mb-2 font-semibold">Recevoir un nouveau lien</h2>
                <ResendVerificationForm />
              </div>
              <div className="flex flex-wrap justify-center gap-4 text-sm">
                <Link to="/register" className="text-primary underline">
                  Créer un compte
                </Link>
                <Link to="/" className="text-primary underline">
                  Retour à l’accueil
                </Link>
              </div>
            </>
          ) : null}
        </CardContent>
      </Card>
    </PageShell>
  );
}
