-- Water chemistry: a dose is a stock movement that says what was suggested; a visit keeps the
-- formula version its readings were first balanced with.
alter table stock_movements add column dose jsonb;
alter table services add column chemistry_version integer;

-- Chemical cost per pool reads a period's visits, then their movements (by the index
-- stock_movements_by_service, which the visit reports' migration made).

-- Readings and pool volumes are now bounded by what a test kit can show and a pool can hold (pH
-- 0-14, ppm >= 0, 32-130 F, 0 < volume <= 10,000,000 gallons). A value stored before, outside those
-- bounds, is a typing error that would make every later change of its record fail validation (a
-- device's edit of the notes would be refused): it is cleared, and kept in the conflict log (the
-- office's Sync conflicts screen), so nothing is lost without a trace.
with bad as (
  select s.org_id, s.id, r.key, r.value
    from services s, jsonb_each(s.chemical_readings) r
   where jsonb_typeof(s.chemical_readings) = 'object' and jsonb_typeof(r.value) = 'number'
     and ((r.key = 'ph' and (r.value::numeric < 0 or r.value::numeric > 14))
       or (r.key = 'temperature' and (r.value::numeric < 32 or r.value::numeric > 130))
       or (r.key in ('freeChlorine', 'totalChlorine', 'totalAlkalinity', 'calciumHardness', 'cyanuricAcid', 'salt', 'phosphates', 'tds')
           and r.value::numeric < 0))
), logged as (
  insert into sync_conflicts (org_id, id, collection, document_id, field, kept_value, lost_value, rule, pushed_by)
  select org_id, gen_random_uuid()::text, 'services', id, 'chemicalReadings.' || key, 'null'::jsonb, value, 'out of range: cleared when readings became bounded', null
    from bad
)
update services s
   set chemical_readings = s.chemical_readings || (select jsonb_object_agg(b.key, null) from bad b where b.org_id = s.org_id and b.id = s.id)
 where exists (select 1 from bad b where b.org_id = s.org_id and b.id = s.id);

with bad as (
  select org_id, id, pool -> 'volumeGallons' as value
    from customers
   where jsonb_typeof(pool -> 'volumeGallons') = 'number'
     and ((pool ->> 'volumeGallons')::numeric <= 0 or (pool ->> 'volumeGallons')::numeric > 10000000)
), logged as (
  insert into sync_conflicts (org_id, id, collection, document_id, field, kept_value, lost_value, rule, pushed_by)
  select org_id, gen_random_uuid()::text, 'customers', id, 'pool.volumeGallons', 'null'::jsonb, value, 'out of range: cleared when volumes became bounded', null
    from bad
)
update customers c set pool = jsonb_set(c.pool, '{volumeGallons}', 'null'::jsonb)
  from bad b where c.org_id = b.org_id and c.id = b.id;

with bad as (
  select c.org_id, c.id, e ->> 'id' as water_id, e -> 'volumeGallons' as value
    from customers c, jsonb_array_elements(c.bodies_of_water) e
   where jsonb_typeof(c.bodies_of_water) = 'array' and jsonb_typeof(e -> 'volumeGallons') = 'number'
     and ((e ->> 'volumeGallons')::numeric <= 0 or (e ->> 'volumeGallons')::numeric > 10000000)
), logged as (
  insert into sync_conflicts (org_id, id, collection, document_id, field, kept_value, lost_value, rule, pushed_by)
  select org_id, gen_random_uuid()::text, 'customers', id, 'bodiesOfWater.' || coalesce(water_id, '?') || '.volumeGallons', 'null'::jsonb, value,
         'out of range: cleared when volumes became bounded', null
    from bad
)
update customers c
   set bodies_of_water = (
     select jsonb_agg(case when jsonb_typeof(e -> 'volumeGallons') = 'number'
                             and ((e ->> 'volumeGallons')::numeric <= 0 or (e ->> 'volumeGallons')::numeric > 10000000)
                           then jsonb_set(e, '{volumeGallons}', 'null'::jsonb) else e end order by n)
       from jsonb_array_elements(c.bodies_of_water) with ordinality as w(e, n))
 where exists (select 1 from bad b where b.org_id = c.org_id and b.id = c.id);
