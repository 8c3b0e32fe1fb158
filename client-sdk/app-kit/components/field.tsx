import { cloneElement, useId, type ReactElement } from 'react';

/**
 * A labelled form control: the label names the control through `for`/`id`, so its accessible
 * name is the label alone (a label wrapping a select would also read out the selected option).
 */
export function Field({ label, children }: { label: string; children: ReactElement<{ id?: string }> }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {cloneElement(children, { id })}
    </div>
  );
}
