import { useEffect, useEffectEvent, useId, useRef, type KeyboardEvent, type ReactNode } from 'react';
import { createPortal } from 'react-dom';

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * The one modal dialog of the app: labelled by its title, focus kept inside (Tab and Shift+Tab wrap), Escape
 * and the backdrop close it, and focus goes back to where it was when it closes.
 */
export function Dialog({ title, onClose, children, footer, testId, className = '' }: { title: string; onClose: () => void; children: ReactNode; footer?: ReactNode; testId?: string; className?: string }) {
  const titleId = useId();
  const box = useRef<HTMLDivElement>(null);
  // The latest onClose, without setting up the listener (and moving focus) again when it changes.
  const close = useEffectEvent(() => onClose());

  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    box.current?.focus();
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.stopPropagation();
        close();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      opener?.focus();
    };
  }, []);

  const trap = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key !== 'Tab' || !box.current) return;
    const items = Array.from(box.current.querySelectorAll<HTMLElement>(FOCUSABLE));
    if (items.length === 0) {
      e.preventDefault();
      return;
    }
    const first = items[0]!;
    const last = items[items.length - 1]!;
    const active = document.activeElement;
    if (e.shiftKey && (active === first || active === box.current)) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && active === last) {
      e.preventDefault();
      first.focus();
    }
  };

  return createPortal(
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div ref={box} className={`card modal ${className}`} role="dialog" aria-modal="true" aria-labelledby={titleId} tabIndex={-1} onKeyDown={trap} data-testid={testId}>
        <div className="row spread">
          <h2 id={titleId}>{title}</h2>
          <button type="button" className="btn small" aria-label={`Close ${title}`} onClick={onClose}>×</button>
        </div>
        {children}
        {footer && <div className="row modal-actions">{footer}</div>}
      </div>
    </div>,
    document.body,
  );
}
