'use client';
import { useState } from 'react';
import s from './hosted.module.css';

/**
 * A select whose change is applied by an explicit button: moving through options with the
 * keyboard never triggers a change on its own (WCAG 3.2.2, on input).
 */
export function ChoiceWithApply({
  label,
  value,
  options,
  disabled,
  onApply,
}: {
  label: string;
  value: string;
  options: Array<{ value: string; label: string }>;
  disabled?: boolean;
  onApply: (value: string) => void;
}) {
  const [choice, setChoice] = useState(value);
  const [saved, setSaved] = useState(value);
  // The saved value changed (after a refresh): start again from it.
  if (saved !== value) {
    setSaved(value);
    setChoice(value);
  }
  return (
    <span className={s.inline}>
      <select aria-label={label} value={choice} disabled={disabled} onChange={(e) => setChoice(e.target.value)}>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <button className={s.secondary} type="button" disabled={disabled || choice === value} onClick={() => onApply(choice)}>
        Apply<span className="sr-only"> {label}</span>
      </button>
    </span>
  );
}
