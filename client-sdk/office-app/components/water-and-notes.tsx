/** A visit's water (condition, level, vacuumed) and its notes, as both visit screens show them (from the replica and from the server). */
export function WaterAndNotes({ visit }: { visit: { waterCondition?: string | null; waterLevel?: string | null; vacuum?: string | null; notes?: string | null } }) {
  return (
    <>
      <h2>Water</h2>
      <dl className="facts">
        <dt>Condition</dt>
        <dd>{visit.waterCondition ?? '—'}</dd>
        <dt>Level</dt>
        <dd>{visit.waterLevel ?? '—'}</dd>
        <dt>Vacuumed</dt>
        <dd>{visit.vacuum ?? '—'}</dd>
      </dl>
      <h2>Notes</h2>
      <p className="notes" data-testid="visit-notes">
        {visit.notes || 'No notes.'}
      </p>
    </>
  );
}
