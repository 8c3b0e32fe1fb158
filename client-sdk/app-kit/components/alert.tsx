/** What went wrong with the action a form started, read out by screen readers as it appears. */
export function Alert({ message }: { message: string | null | undefined }) {
  if (!message) return null;
  return (
    <p role="alert" className="error">
      {message}
    </p>
  );
}
