import { useEffect, useState } from 'react';
import { PhotoLinksDocument } from './graphql/operations.generated.js';
import { useSession } from '../app-kit/hooks.js';

/**
 * Signed links to visit photos. Replicas hold photo metadata only (a link expires, so none is
 * stored); the links come from the server for the photos whose bytes have arrived (`size` set),
 * asked again whenever that set changes. Offline there are none, and screens say so.
 */
const PAGE = 100;

/** What the links are asked for: a visit and its photos' ids, `size` set once the bytes arrived. */
interface VisitPhotos {
  id: string;
  photos: readonly { id: string; size: number | null }[];
}

export function usePhotoLinks(visits: readonly VisitPhotos[] | null): Map<string, string> {
  const { api } = useSession();
  const [links, setLinks] = useState(() => new Map<string, string>());
  const withPhotos = (visits ?? []).filter((v) => v.photos.some((p) => p.size != null));
  const key = withPhotos.map((v) => `${v.id}:${v.photos.filter((p) => p.size != null).map((p) => p.id).join('+')}`).sort().join();
  useEffect(() => {
    if (!key) return;
    let current = true;
    const ids = withPhotos.map((v) => v.id);
    const pages = [];
    for (let i = 0; i < ids.length; i += PAGE) pages.push(ids.slice(i, i + PAGE));
    Promise.all(pages.map((page) => api.graphql(PhotoLinksDocument, { ids: page, first: PAGE }))).then(
      (answers) => {
        if (!current) return;
        const next = new Map<string, string>();
        for (const edge of answers.flatMap((a) => a.infiniteServices.edges)) {
          for (const photo of edge.node.photos) if (photo.url) next.set(photo.id, photo.url);
        }
        setLinks(next);
      },
      () => {}, // offline: the screens show that photos need a connection
    );
    return () => {
      current = false;
    };
    // `key` stands for the visits and photos asked about.
  }, [api, key]);
  return links;
}

