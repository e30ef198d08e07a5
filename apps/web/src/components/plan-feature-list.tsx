import { Check } from 'lucide-react';
import { cn } from '@/lib/utils';

/**
 * A plan's feature lines with check marks (home page and /subscribe), as the server serves them:
 * with French typography already applied (`toPublicPlan`).
 */
export function PlanFeatureList({ features, className }: { features: string[]; className?: string }) {
  return (
    <ul className={cn('flex-1 space-y-2 text-sm', className)}>
      {features.map((feature) => (
        <li key={feature} className="flex items-start gap-2">
          <Check className="mt-0.5 size-4 shrink-0 text-emerald-600" aria-hidden />
          {feature}
        </li>
      ))}
    </ul>
  );
}
