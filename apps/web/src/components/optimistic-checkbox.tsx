"use client";

import { useEffect, useState, type InputHTMLAttributes } from "react";

/**
 * A checkbox whose value is saved on the server: it shows the new state at once and follows the server's value
 * when that arrives (so a refused change springs back).
 */
export function OptimisticCheckbox({
  checked,
  onCheckedChange,
  ...rest
}: Omit<InputHTMLAttributes<HTMLInputElement>, "type" | "checked" | "onChange"> & {
  checked: boolean;
  onCheckedChange: (checked: boolean) => void;
}) {
  const [shown, setShown] = useState(checked);
  useEffect(() => setShown(checked), [checked]);
  return (
    <input
      {...rest}
      type="checkbox"
      checked={shown}
      onChange={(e) => {
        setShown(e.target.checked);
        onCheckedChange(e.target.checked);
      }}
    />
  );
}
