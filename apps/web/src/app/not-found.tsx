import Link from "next/link";

export default function NotFound() {
  return (
    <div className="centered card stack">
      <h1>Not found</h1>
      <p className="muted">This page does not exist, or you do not have access to it.</p>
      <Link href="/teams">Back to your teams</Link>
    </div>
  );
}
