import type { Queryable } from '../../server/storage/db.js';

/**
 * Deterministic bulk data for one organization: customers with realistic names, addresses and
 * phones, and visits spread over two years across technicians and service types. The same counts
 * always give the same rows, so benchmark figures compare run to run. Rows go through the normal
 * tables and triggers (change feed included), in one statement per table.
 */
export interface SeedCounts {
  customers: number;
  services: number;
  /** Inventory items (spread over 5 locations), default 0. */
  items?: number;
  /** Pad every visit's notes to about this many characters (a ~1 KB visit needs ~600), default none. */
  noteLength?: number;
}

const FIRST = ['James', 'Mary', 'John', 'Patricia', 'Robert', 'Jennifer', 'Michael', 'Linda', 'David', 'Elizabeth',
  'William', 'Barbara', 'Richard', 'Susan', 'Joseph', 'Jessica', 'Thomas', 'Sarah', 'Carlos', 'Karen', 'Daniel',
  'Lisa', 'Matthew', 'Nancy', 'Anthony', 'Betty', 'Mark', 'Sandra', 'Luis', 'Ashley', 'Steven', 'Kimberly', 'Paul',
  'Emily', 'Andrew', 'Donna', 'Joshua', 'Michelle', 'Kevin', 'Carol'];
const LAST = ['Smith', 'Johnson', 'Williams', 'Brown', 'Jones', 'Garcia', 'Miller', 'Davis', 'Rodriguez', 'Martinez',
  'Hernandez', 'Lopez', 'Gonzalez', 'Wilson', 'Anderson', 'Thomas', 'Taylor', 'Moore', 'Jackson', 'Martin', 'Lee',
  'Perez', 'Thompson', 'White', 'Harris', 'Sanchez', 'Clark', 'Ramirez', 'Lewis', 'Robinson', 'Walker', 'Young',
  'Allen', 'King', 'Wright', 'Scott', 'Torres', 'Nguyen', 'Hill', 'Flores', 'Green', 'Adams', 'Nelson', 'Baker',
  'Hall', 'Rivera', 'Campbell', 'Mitchell', 'Carter', 'Roberts', 'Gomez', 'Phillips', 'Evans', 'Turner', 'Diaz',
  'Parker', 'Cruz', 'Edwards', 'Collins', 'Reyes'];
const STREETS = ['Palm', 'Oak', 'Mesquite', 'Saguaro', 'Desert Willow', 'Camelback', 'Indian School', 'Ocotillo',
  'Cactus', 'Shea', 'Thunderbird', 'Bell', 'Greenway', 'Elliot', 'Warner', 'Ray', 'Chandler', 'Baseline', 'Southern', 'Broadway'];
const CITIES = ['Phoenix', 'Mesa', 'Chandler', 'Scottsdale', 'Gilbert', 'Tempe', 'Peoria', 'Glendale', 'Surprise',
  'Goodyear', 'Avondale', 'Queen Creek', 'Fountain Hills', 'Cave Creek', 'Paradise Valley'];
const STATUSES = ['ACTIVE', 'ACTIVE', 'ACTIVE', 'ACTIVE', 'INACTIVE', 'LEAD'];
const ZONES = ['North', 'South', 'East', 'West', 'Central'];
const TAGS = ['weekly', 'biweekly', 'vip', 'salt', 'commercial', 'gate-code', 'dog'];

/** The technicians visits are assigned to (user ids). */
export const SEED_TECHNICIANS = Array.from({ length: 12 }, (_, i) => `tech-${String(i + 1).padStart(2, '0')}`);
const NOTES = ['Cleaned filter', 'Brushed walls and steps', 'Replaced skimmer basket', 'Added salt', 'Pump noisy, check bearings'];
const TYPES = ['type-weekly', 'type-filter', 'type-acid-wash', 'type-repair', 'type-green-to-clean'];

const sqlArray = (values: readonly string[]) => `array[${values.map((v) => `'${v.replace(/'/g, "''")}'`).join(',')}]`;
/** 1-based pick from an array literal by a deterministic index expression. */
const pick = (values: readonly string[], index: string) => `(${sqlArray(values)})[(1 + (${index}) % ${values.length})::int]`;

export async function seedOrganizationData(q: Queryable, orgId: string, counts: SeedCounts): Promise<void> {
  await q.query(
    `insert into service_types (org_id, id, display, description)
     select $1, t, initcap(replace(substr(t, 6), '-', ' ')), null from unnest(${sqlArray(TYPES)}::text[]) t`,
    [orgId],
  );
  await q.query(
    `insert into customers (org_id, id, first_name, last_name, street_address, city, state, zip_code,
       phone_number, alternate_phone_number, email, status, zone, tags, customer_since_date, is_commercial, ready_for_invoice)
     select $1, 'cust-' || lpad(i::text, 7, '0'),
       ${pick(FIRST, 'i * 7')}, ${pick(LAST, 'i * 13 + i / 97')},
       (100 + (i * 37) % 9800)::text || ' ' || ${pick(STREETS, 'i * 3')} || ' ' || ${pick(['St', 'Ave', 'Rd', 'Ln', 'Dr'], 'i')},
       ${pick(CITIES, 'i * 11')}, 'AZ', (85001 + (i * 17) % 400)::text,
       '(480) 555-' || lpad(((i * 7919) % 10000)::text, 4, '0'),
       case when i % 4 = 0 then '(602) 555-' || lpad(((i * 104729) % 10000)::text, 4, '0') end,
       'customer' || i || '@example.com',
       ${pick(STATUSES, 'i')}, ${pick(ZONES, 'i / 5')},
       array[${pick(TAGS, 'i')}, ${pick(TAGS, 'i / 7 + 3')}],
       date '2015-01-01' + ((i * 31) % 3900)::int, i % 23 = 0, i % 5 = 0
     from generate_series(1, $2::bigint) i`,
    [orgId, counts.customers],
  );
  if (counts.services > 0) await q.query(
    `insert into services (org_id, id, reference, customer_id, type_id, new_technician_id, new_secondary_technician_id,
       start_time, end_time, billing_status, flag, vacuum, water_level, water_condition, water_color, notes,
       photos, chemical_readings, date_emailed)
     select $1, 'svc-' || lpad(i::text, 8, '0'), 'V-' || i,
       'cust-' || lpad((1 + (i * 7) % $3::int)::text, 7, '0'),
       ${pick(TYPES, 'i')}, ${pick(SEED_TECHNICIANS, 'i * 5')},
       case when i % 10 = 0 then ${pick(SEED_TECHNICIANS, 'i + 3')} end,
       timestamptz '2025-01-01 07:00:00+00' + make_interval(secs => i * (63072000.0 / $2::int)),
       timestamptz '2025-01-01 07:30:00+00' + make_interval(secs => i * (63072000.0 / $2::int)),
       ${pick(['NOT_BILLED', 'READY', 'INVOICED'], 'i')}, case when i % 50 = 0 then 'FOLLOW_UP' end,
       ${pick(['YES', 'NO', 'PARTIAL'], 'i')}, ${pick(['LOW', 'NORMAL', 'HIGH'], 'i / 3')},
       ${pick(['CLEAR', 'CLOUDY', 'GREEN'], 'i / 11')}, ${pick(['BLUE', 'GREEN', 'CLEAR'], 'i / 13')},
       case when $4::int > 0
         then left(${pick(NOTES, 'i')} || repeat('. Skimmed surface, brushed tile line, emptied baskets, checked pressure', $4::int / 70 + 1), $4::int)
         when i % 3 = 0 then ${pick(NOTES, 'i')} end,
       '[]'::jsonb,
       jsonb_build_object('freeChlorine', 1 + (i % 40) / 10.0, 'ph', 7 + (i % 8) / 10.0),
       case when i % 2 = 0 then timestamptz '2025-01-01 09:00:00+00' + make_interval(secs => i * (63072000.0 / $2::int)) end
     from generate_series(1, $2::bigint) i`,
    [orgId, counts.services, counts.customers, counts.noteLength ?? 0],
  );
  if (counts.items) {
    await q.query(
      `insert into inventory_locations (org_id, id, name, address)
       select $1, 'loc-' || i, 'Truck ' || i, null from generate_series(1, 5) i`,
      [orgId],
    );
    await q.query(
      `insert into inventory_items (org_id, id, name, sku, category, unit_price, quantity, reorder_point, location_id, is_active)
       select $1, 'item-' || lpad(i::text, 5, '0'), 'Item ' || i, 'SKU-' || i,
         ${pick(['CHEMICAL', 'EQUIPMENT', 'PARTS', 'SUPPLIES'], 'i')}, 1 + (i % 90), 0, 5, 'loc-' || (1 + i % 5), true
       from generate_series(1, $2::bigint) i`,
      [orgId, counts.items],
    );
  }
  // Vacuumed as well as analyzed, as autovacuum leaves a table in service: the first read of a
  // freshly bulk-loaded table sets every row's hint bits (writing each page again), which made the
  // first initial syncs of a bench run up to twice as slow as the later ones.
  for (const table of ['customers', 'services', 'customer_search', 'service_search']) await q.query(`vacuum (analyze) ${table}`);
}

/**
 * The office window the benches that seed with this run with: their visits span two years, and the
 * measures are of a device that holds them all (an office that keeps its whole history: an
 * organization may set SYNC_OFFICE_WINDOW_DAYS so; the default is 14 days).
 */
export const BENCH_OFFICE_WINDOW_DAYS = 3650;
