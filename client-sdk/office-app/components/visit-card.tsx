import { customerAddress, customerName, readingsOf, time, visitStatus } from '../../app-kit/format.js';
import { href } from '../../app-kit/route.js';
import type { BoardCustomer, BoardVisit } from '../board/board-data.js';

/** One visit on the board: a link to its page that can also be dragged to another cell. */
export function VisitCard(props: { visit: BoardVisit; customer: BoardCustomer | undefined; typeName: string | undefined; photoLinks: ReadonlyMap<string, string> }) {
  const { visit, customer, typeName, photoLinks } = props;
  const status = visitStatus(visit);
  const outOfRange = readingsOf(visit.chemicalReadings).filter((r) => r.outOfRange);
  const uploaded = visit.photos.filter((p) => p.size != null);
  const photo = uploaded.find((p) => photoLinks.has(p.id));
  return (
    <a
      className={`visit-card status-${status.replace(' ', '-')}`}
      href={href('visit', visit.id)}
      draggable
      onDragStart={(e) => {
        e.dataTransfer.setData('text/x-visit-id', visit.id);
        e.dataTransfer.effectAllowed = 'move';
      }}
      data-visit-id={visit.id}
    >
      <span className="when">{time(visit.startTime)}</span>
      <span className={`badge ${status.replace(' ', '-')}`}>{status}</span>
      <strong className="customer">{customerName(customer)}</strong>
      <span className="address">{customerAddress(customer)}</span>
      {typeName && <span className="type">{typeName}</span>}
      {outOfRange.length > 0 && (
        <span className="out-of-range" title="Readings out of range">
          ⚠ {outOfRange.map((r) => `${r.label} ${r.value}`).join(', ')}
        </span>
      )}
      {photo && <img className="thumb" src={photoLinks.get(photo.id)} alt={photo.caption ?? 'Visit photo'} loading="lazy" />}
      {uploaded.length < visit.photos.length && <span className="photo-pending">{visit.photos.length - uploaded.length} photo(s) still uploading from the device</span>}
      {uploaded.length > 0 && !photo && <span className="photo-pending">{uploaded.length} photo(s), shown when online</span>}
    </a>
  );
}
