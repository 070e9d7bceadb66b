import { useId } from 'react';

export function Field(props: {
  label: string;
  name: string;
  type?: string;
  value: string;
  error?: string | undefined;
  autoComplete?: string;
  disabled?: boolean;
  onChange: (value: string) => void;
}) {
  const id = useId();
  const errorId = `${id}-error`;
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <input
        id={id}
        name={props.name}
        type={props.type ?? 'text'}
        value={props.value}
        autoComplete={props.autoComplete}
        disabled={props.disabled}
        aria-invalid={props.error ? true : undefined}
        aria-describedby={props.error ? errorId : undefined}
        onChange={(e) => props.onChange(e.target.value)}
      />
      {props.error && (
        <span id={errorId} className="field-error" role="alert">
          {props.error}
        </span>
      )}
    </div>
  );
}
