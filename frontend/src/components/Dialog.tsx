import { useEffect, useId, useRef, type ReactNode } from 'react';
import { useMessages } from '../i18n';

const FOCUSABLE = 'a[href], button, input, select, textarea, [tabindex]:not([tabindex="-1"])';

/** A modal dialog: Escape and the backdrop close it; focus moves inside and stays there. */
export function Dialog({
  title,
  onClose,
  children,
  testId,
  closeOnBackdrop = true,
}: {
  title: string;
  onClose: () => void;
  children: ReactNode;
  testId?: string;
  /** False for dialogs holding typed input: a stray click outside must not lose it. */
  closeOnBackdrop?: boolean;
}) {
  const id = useId();
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const prev = document.activeElement as HTMLElement | null;
    const first = ref.current?.querySelector<HTMLElement>('[autofocus], input, textarea, select, button');
    first?.focus();
    return () => prev?.focus?.();
  }, []);
  return (
    <div
      className="dialog-backdrop"
      onMouseDown={(e) => {
        if (closeOnBackdrop && e.target === e.currentTarget) onClose();
      }}
    >
      <div
        ref={ref}
        className="dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby={id}
        data-testid={testId}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.stopPropagation();
            onClose();
          } else if (e.key === 'Tab') {
            // Keep focus inside the dialog while it is open.
            const items = [...(ref.current?.querySelectorAll<HTMLElement>(FOCUSABLE) ?? [])].filter((el) => !el.hasAttribute('disabled'));
            const first = items[0];
            const last = items[items.length - 1];
            if (!first || !last) return;
            if (e.shiftKey && document.activeElement === first) {
              e.preventDefault();
              last.focus();
            } else if (!e.shiftKey && document.activeElement === last) {
              e.preventDefault();
              first.focus();
            }
          }
        }}
      >
        <h2 id={id}>{title}</h2>
        {children}
      </div>
    </div>
  );
}

export function ConfirmDialog({
  title,
  body,
  confirm,
  onConfirm,
  onCancel,
  busy,
  error,
}: {
  title: string;
  body: ReactNode;
  confirm: string;
  onConfirm: () => void;
  onCancel: () => void;
  busy?: boolean;
  error?: string | null;
}) {
  const t = useMessages();
  return (
    <Dialog title={title} onClose={onCancel} testId="confirm-dialog">
      <div>{body}</div>
      {error && (
        <p className="inline-error" role="alert">
          {error}
        </p>
      )}
      <div className="dialog-actions">
        <button type="button" onClick={onCancel} autoFocus>
          {t.cancel}
        </button>
        <button type="button" className="danger solid" onClick={onConfirm} disabled={busy} data-testid="confirm">
          {confirm}
        </button>
      </div>
    </Dialog>
  );
}

/** Inline "could not load" with a retry: one per section, never the whole page. */
export function LoadError({ title, message, retry }: { title: string; message: string | null; retry: () => void }) {
  const t = useMessages();
  return (
    <div className="callout callout-error" role="alert">
      <div>
        <strong>{title}</strong>
        {message && <p>{message}</p>}
      </div>
      <button type="button" onClick={retry}>
        {t.retry}
      </button>
    </div>
  );
}

export function Switch({
  checked,
  onChange,
  label,
  disabled,
  testId,
}: {
  checked: boolean;
  onChange: (on: boolean) => void;
  label: string;
  disabled?: boolean;
  testId?: string;
}) {
  return (
    <button
      type="button"
      role="switch"
      aria-checked={checked}
      aria-label={label}
      title={label}
      className={`switch${checked ? ' on' : ''}`}
      disabled={disabled}
      onClick={() => onChange(!checked)}
      data-testid={testId}
    >
      <span className="switch-knob" aria-hidden="true" />
    </button>
  );
}
