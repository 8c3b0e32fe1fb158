import { useEffect, useState, type ChangeEvent } from 'react';
import { Alert } from '../../app-kit/components/alert.js';
import { Field } from '../../app-kit/components/field.js';
import { useAction, useSession } from '../../app-kit/hooks.js';
import { usePhotoLinks } from '../../app-kit/photo-links.js';
import type { Visit } from '../data.js';
import { downscale } from '../photos.js';

/**
 * A visit's photos: taken with the camera (or picked), scaled down on the phone, captioned, and
 * queued for upload. A photo still waiting shows from the phone's own copy; an uploaded one from
 * its signed link (online).
 */
export function VisitPhotos({ visit }: { visit: Visit }) {
  const { client } = useSession();
  const [caption, setCaption] = useState('');
  const add = useAction();
  const links = usePhotoLinks([visit]);
  const waiting = useQueued(visit.id);
  async function picked(event: ChangeEvent<HTMLInputElement>) {
    const files = Array.from(event.target.files ?? []);
    event.target.value = '';
    await add.run(async () => {
      for (const file of files) await client.addVisitPhoto(visit.id, await downscale(file), caption.trim() || null);
      setCaption('');
    });
  }
  return (
    <section className="card" aria-labelledby="photos-title">
      <h2 id="photos-title">Photos</h2>
      {visit.photos.length === 0 ? (
        <p className="empty">No photos yet.</p>
      ) : (
        <ul className="photos">
          {visit.photos.map((p) => {
            const src = waiting.get(p.id) ?? links.get(p.id);
            return (
              <li key={p.id}>
                {src ? <img src={src} alt={p.caption ?? 'Visit photo'} /> : <span className="photo-placeholder">{p.size ? 'Shown when online' : 'Uploading…'}</span>}
                <span>{p.caption ?? 'No caption'}</span>
              </li>
            );
          })}
        </ul>
      )}
      <Field label="Caption for the next photo">
        <input value={caption} onChange={(e) => setCaption(e.target.value)} placeholder="e.g. Filter before cleaning" />
      </Field>
      <label className="button file-button">
        {add.busy ? 'Adding…' : 'Take or add photos'}
        <input type="file" accept="image/*" capture="environment" multiple onChange={picked} disabled={add.busy} />
      </label>
      <Alert message={add.error} />
    </section>
  );
}

/** The visit's photos still waiting on the phone, as data URLs of their scaled-down bytes. */
function useQueued(visitId: string): Map<string, string> {
  const { client } = useSession();
  const [queued, setQueued] = useState(() => new Map<string, string>());
  useEffect(() => {
    const subscription = client.db.collections.photoUploads.find({ selector: { parentId: visitId } }).$.subscribe((docs) =>
      setQueued(new Map(docs.map((d) => [d.id, `data:${d.contentType};base64,${d.data}`]))),
    );
    return () => subscription.unsubscribe();
  }, [client, visitId]);
  return queued;
}
