import type { ReadingView } from '../../app-kit/format.js';

/** A visit's readings, each out-of-range one marked (the visit screen, from the replica or from the server). */
export function ReadingsTable({ readings }: { readings: readonly ReadingView[] }) {
  if (readings.length === 0) return <p>No readings recorded.</p>;
  return (
    <table className="readings">
      <tbody>
        {readings.map((r) => (
          <tr key={r.field} className={r.outOfRange ? 'out-of-range' : undefined}>
            <th scope="row">{r.label}</th>
            <td>
              {r.value} {r.unit} {r.outOfRange && <span className="flag-text">out of range</span>}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
