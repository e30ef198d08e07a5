import { Suspense, useRef, useState, type ComponentType } from 'react';
import { Button, type ButtonProps } from '@/components/ui/button';
import type { DialogOpenProps } from '@/components/ui/dialog';

/**
 * A button that opens a dialog whose code loads on first use (`dialog` is a `React.lazy`
 * component, given its other props in `dialogProps`): nothing of the dialog is in the page's first
 * load. With no Radix trigger, focus goes back to the button by hand when the dialog closes.
 */
export function LazyDialogButton<P extends object>({
  dialog: Dialog,
  dialogProps,
  children,
  ...buttonProps
}: Omit<ButtonProps, 'onClick' | 'ref'> & {
  dialog: ComponentType<P & DialogOpenProps>;
  dialogProps: P;
}) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  return (
    <>
      <Button
        ref={button}
        aria-haspopup="dialog"
        aria-expanded={open}
        onClick={() => setOpen(true)}
        {...buttonProps}
      >
        {children}
      </Button>
      {open ? (
        <Suspense fallback={null}>
          <Dialog
            {...dialogProps}
            open
            onOpenChange={(next) => {
              setOpen(next);
              if (!next) button.current?.focus();
            }}
          />
        </Suspense>
      ) : null}
    </>
  );
}
