"use client";

import type { ReactNode } from "react";
import { FormError } from "./form-error";

/** Skeleton rows shown while a query loads. */
export function Skeletons({ rows = 2, className = "stack" }: { rows?: number; className?: string }) {
  return (
    <div className={className} aria-busy="true">
      {Array.from({ length: rows }, (_, i) => (
        <div key={i} className="skeleton" />
      ))}
    </div>
  );
}

/**
 * A query's four states in one place: `loading` while pending (skeleton rows by default), the error as one
 * sentence in an alert (`errorPrefix` first, e.g. "Could not load your teams: "), `empty` when `isEmpty(data)`,
 * otherwise `children(data)`.
 */
export function QueryState<T>({
  query,
  loading = <Skeletons />,
  errorPrefix,
  errorClassName = "error",
  isEmpty,
  empty,
  children,
}: {
  query: { isPending: boolean; isError: boolean; error: unknown; data: T | undefined };
  loading?: ReactNode;
  errorPrefix?: string;
  errorClassName?: string;
  isEmpty?: (data: T) => boolean;
  empty?: ReactNode;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <>{loading}</>;
  if (query.isError || query.data === undefined)
    return <FormError error={query.error} prefix={errorPrefix} className={errorClassName} />;
  if (isEmpty?.(query.data)) return <>{empty}</>;
  return <>{children(query.data)}</>;
}
