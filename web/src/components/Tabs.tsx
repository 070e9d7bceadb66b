import type { KeyboardEvent } from 'react';

/** Id of the panel a tab controls, when Tabs is given an idPrefix (the panel uses it with role="tabpanel"). */
export const tabPanelId = (prefix: string, id: string) => `${prefix}-panel-${id}`;
export const tabId = (prefix: string, id: string) => `${prefix}-tab-${id}`;

/**
 * Accessible tabs (WAI-ARIA tabs pattern): arrow keys, Home and End move between them and take
 * the focus along; with an idPrefix each tab names the panel it controls.
 */
export function Tabs<T extends string>({ tabs, active, onChange, label, idPrefix }: { tabs: Array<[T, string]>; active: T; onChange: (t: T) => void; label: string; idPrefix?: string }) {
  const onKey = (e: KeyboardEvent<HTMLButtonElement>, i: number) => {
    const target = e.key === 'ArrowRight' ? (i + 1) % tabs.length : e.key === 'ArrowLeft' ? (i + tabs.length - 1) % tabs.length : e.key === 'Home' ? 0 : e.key === 'End' ? tabs.length - 1 : -1;
    if (target < 0) return;
    e.preventDefault();
    onChange(tabs[target]![0]);
    (e.currentTarget.parentElement?.children[target] as HTMLElement | undefined)?.focus();
  };
  return (
    <div className="tabs" role="tablist" aria-label={label}>
      {tabs.map(([id, text], i) => (
        <button
          key={id}
          type="button"
          role="tab"
          id={idPrefix ? tabId(idPrefix, id) : undefined}
          aria-controls={idPrefix ? tabPanelId(idPrefix, id) : undefined}
          aria-selected={active === id}
          tabIndex={active === id ? 0 : -1}
          className={active === id ? 'tab active' : 'tab'}
          onClick={() => onChange(id)}
          onKeyDown={(e) => onKey(e, i)}
        >
          {text}
        </button>
      ))}
    </div>
  );
}
