/** A screen whose data is on its way: its heading at once (a person knows where they are), then the wait, or what went wrong. */
export function Loading({ title, error }: { title: string; error?: string | null }) {
  return (
    <section>
      <h1>{title}</h1>
      <p role={error ? 'alert' : 'status'} className={error ? 'error' : 'loading'}>
        {error ?? 'Loading…'}
      </p>
    </section>
  );
}
