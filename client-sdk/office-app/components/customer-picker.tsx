import { useEffect, useId, useState } from 'react';
import { OfficeLookupDocument, type OfficeLookupQuery } from '../graphql/operations.generated.js';
import { customerAddress, customerName } from '../../app-kit/format.js';
import { useSession } from '../../app-kit/hooks.js';

/** A customer as the lookup answers it. */
export type PickedCustomer = OfficeLookupQuery['infiniteCustomerLookup']['edges'][number]['node'];

/** Choosing a customer by typing: the server's search-as-you-type lookup, the first 8 matches. */
export function CustomerPicker({ value, onChange }: { value: PickedCustomer | null; onChange: (c: PickedCustomer | null) => void }) {
  const { api } = useSession();
  const id = useId();
  const [query, setQuery] = useState('');
  const [matches, setMatches] = useState<PickedCustomer[]>([]);
  useEffect(() => {
    if (!query.trim() || value) return setMatches([]);
    let current = true;
    const timer = setTimeout(() => {
      api
        .graphql(OfficeLookupDocument, { q: query })
        .then((r) => current && setMatches(r.infiniteCustomerLookup.edges.map((e) => e.node)), () => {});
    }, 150);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [api, query, value]);
  if (value)
    return (
      <p className="picked">
        Customer: <strong>{customerName(value)}</strong>{' '}
        <button type="button" className="link" onClick={() => onChange(null)}>
          change
        </button>
      </p>
    );
  return (
    <div className="picker">
      <label htmlFor={id}>Customer</label>
      <input id={id} type="search" value={query} onChange={(e) => setQuery(e.target.value)} placeholder="Type a name or street" />
      {matches.length > 0 && (
        <ul role="listbox" aria-label="Matching customers">
          {matches.map((c) => (
            <li key={c.id}>
              <button type="button" role="option" aria-selected={false} onClick={() => onChange(c)}>
                {customerName(c)} <small>{customerAddress(c)}</small>
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
