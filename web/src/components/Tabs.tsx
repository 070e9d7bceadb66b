import type { KeyboardEvent } from 'react';

/** Accessible tabs: arrow keys move between them. */
export function Tabs<T extends string>({ tabs, active, onChange, label }: { tabs: Array<[T, string]>; active: T; onChange: (t: T) => void; label: string }) {
  const onKey = (e: KeyboardEvent, i: number) => {
    if (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft') return;
    const next = tabs[(i + (e.key === 'ArrowRight' ? 1 : tabs.length - 1)) % tabs.length]!;
    onChange(next[0]);
  };
  return (
    <div className="tabs" role="tablist" aria-label={label}>
      {tabs.map(([id, text], i) => (
        <button key={id} type="button" role="tab" aria-selected={active === id} tabIndex={active === id ? 0 : -1} className={active === id ? 'tab active' : 'tab'} onClick={() => onChange(id)} onKeyDown={(e) => onKey(e, i)}>
          {text}
        </button>
      ))}
    </div>
  );
}
