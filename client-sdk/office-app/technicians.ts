import { useEffect, useState } from 'react';
import { OfficeTechniciansDocument } from './graphql/operations.generated.js';
import { useSession } from '../app-kit/hooks.js';

/**
 * The organization's technicians (users are not replicated): asked of the server, and kept in
 * this browser so the board still has its columns offline.
 */
export interface Technician {
  id: string;
  name: string;
}

const KEY = 'pool-office-technicians';

export function useTechnicians(): Technician[] {
  const { api, viewer } = useSession();
  const key = `${KEY}-${viewer.organization.id}`;
  const [technicians, setTechnicians] = useState<Technician[]>(() => JSON.parse(localStorage.getItem(key) ?? '[]') as Technician[]);
  useEffect(() => {
    let current = true;
    api.graphql(OfficeTechniciansDocument).then(
      ({ users }) => {
        if (!current) return;
        localStorage.setItem(key, JSON.stringify(users));
        setTechnicians(users);
      },
      () => {}, // offline: the remembered list stands
    );
    return () => {
      current = false;
    };
  }, [api, key]);
  return technicians;
}
